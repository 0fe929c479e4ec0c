/* test_timestamp.c: epoch milliseconds and ISO-8601 without a clock or a
 * zone database (include/crawltop/timestamp.h, SPEC.md seed 004). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/timestamp.h"

/* 2024-06-10T08:00:00Z: 2024-01-01 is day 19723 (54 years of 365 days plus
 * 13 leap days 1972..2020 = 19710 + 13); Jan..May 2024 add
 * 31 + 29 + 31 + 30 + 31 = 152, so June 10 is day 19723 + 152 + 9 =
 * 19884; 19884 x 86400 + 8 x 3600 = 1718006400 s. */
#define T_0610_0800 INT64_C(1718006400000)
#define T_0610_0000 INT64_C(1717977600000) /* 19884 x 86400000 */
#define HOUR_MS INT64_C(3600000)

static int64_t parse_ok(const char *s)
{
	int64_t ms = -42;
	struct ct_error err = {{0}};
	ct_status st = ct_time_parse(s, &ms, &err);
	if (st != CT_OK)
		fail_msg("ct_time_parse(\"%s\") failed: %s", s, err.msg);
	return ms;
}

/* Refused with CT_EINVAL, *ms untouched, the message naming the text. */
static void parse_bad(const char *s)
{
	int64_t ms = -42;
	struct ct_error err = {{0}};
	ct_status st = ct_time_parse(s, &ms, &err);
	if (st != CT_EINVAL)
		fail_msg("ct_time_parse(\"%s\") = %d (ms %lld), expected CT_EINVAL",
			 s, (int)st, (long long)ms);
	assert_true(ms == -42);
	if (*s && !strstr(err.msg, s))
		fail_msg("message does not name '%s': %s", s, err.msg);
}

static void days_from_civil(void **state)
{
	assert_int_equal(ct_days_from_civil(1970, 1, 1), 0);
	assert_int_equal(ct_days_from_civil(1969, 12, 31), -1);
	assert_int_equal(ct_days_from_civil(1970, 1, 2), 1);
	assert_int_equal(ct_days_from_civil(2024, 1, 1), 19723);
	assert_int_equal(ct_days_from_civil(2024, 6, 10), 19884);
	/* 2000-03-01: 30 years (7 leap days 1972..1996) = 10957 to
	 * 2000-01-01, + 31 + 29 = 11017 */
	assert_int_equal(ct_days_from_civil(2000, 3, 1), 11017);
	/* consecutive days across the 2024 leap day */
	assert_int_equal(ct_days_from_civil(2024, 3, 1) -
			 ct_days_from_civil(2024, 2, 28), 2);
	assert_int_equal(ct_days_from_civil(2023, 3, 1) -
			 ct_days_from_civil(2023, 2, 28), 1);
}

static void epoch_milliseconds(void **state)
{
	assert_true(parse_ok("1718006400000") == T_0610_0800);
	assert_true(parse_ok("0") == 0);
	assert_true(parse_ok("-1000") == -1000);
	assert_true(parse_ok("1") == 1);
	/* too many digits for a sane time */
	parse_bad("1234567890123456789012");
	/* 8 digits read as a basic date by a person: refused, not taken as
	 * 1970-01-01T05:37:20.229Z, with the way out named */
	parse_bad("20240229");
	parse_bad("12345678");
	int64_t ms = -42;
	struct ct_error err = {{0}};
	assert_int_equal(ct_time_parse("20240229", &ms, &err), CT_EINVAL);
	assert_non_null(strstr(err.msg, "ambiguous"));
	assert_non_null(strstr(err.msg, "use 2024-02-29"));
	/* 7 and 9 digits, a sign, or a leading 0 are plainly epoch ms */
	assert_true(parse_ok("2024022") == 2024022);
	assert_true(parse_ok("202402290") == 202402290);
	assert_true(parse_ok("020240229") == 20240229);
	assert_true(parse_ok("-20240229") == -20240229);
}

static void iso_utc(void **state)
{
	assert_true(parse_ok("2024-06-10T08:00:00Z") == T_0610_0800);
	assert_true(parse_ok("1970-01-01T00:00:00Z") == 0);
	/* lower-case designators and a space separator */
	assert_true(parse_ok("2024-06-10t08:00:00z") == T_0610_0800);
	assert_true(parse_ok("2024-06-10 08:00:00Z") == T_0610_0800);
	/* seconds may be left out */
	assert_true(parse_ok("2024-06-10T08:00Z") == T_0610_0800);
	/* 23:59:59 is the last second of the day */
	assert_true(parse_ok("2024-06-10T23:59:59Z") ==
		    T_0610_0000 + 86399 * INT64_C(1000));
}

/* 10:00 at +02:00 is 08:00 UTC; 02:30 at -05:30 is 08:00 UTC. */
static void iso_with_offset(void **state)
{
	assert_true(parse_ok("2024-06-10T10:00:00+02:00") == T_0610_0800);
	assert_true(parse_ok("2024-06-10T10:00:00+0200") == T_0610_0800);
	assert_true(parse_ok("2024-06-10T10:00:00+02") == T_0610_0800);
	assert_true(parse_ok("2024-06-10T02:30:00-05:30") == T_0610_0800);
	assert_true(parse_ok("2024-06-10T08:00:00+00:00") == T_0610_0800);
	assert_true(parse_ok("2024-06-10T08:00:00-00:00") == T_0610_0800);
	/* an offset that crosses midnight: 01:00+02:00 is 23:00 the day before */
	assert_true(parse_ok("2024-06-10T01:00:00+02:00") == T_0610_0000 - HOUR_MS);
	parse_bad("2024-06-10T10:00:00+2");
	parse_bad("2024-06-10T10:00:00+02:0");
	parse_bad("2024-06-10T10:00:00+24:00");
	parse_bad("2024-06-10T10:00:00+02:60");
	parse_bad("2024-06-10T10:00:00+02:"); /* a colon with no minutes */
	parse_bad("2024-06-10T10:00:00+");
}

/* Without a zone the time is UTC (SPEC.md). */
static void iso_without_zone_is_utc(void **state)
{
	assert_true(parse_ok("2024-06-10T08:00:00") == T_0610_0800);
	assert_true(parse_ok("2024-06-10T08:00") == T_0610_0800);
	assert_true(parse_ok("2024-06-10 08:00:00") == T_0610_0800);
}

/* A date alone is midnight UTC. */
static void date_alone_is_midnight(void **state)
{
	assert_true(parse_ok("2024-06-10") == T_0610_0000);
	assert_true(parse_ok("1970-01-01") == 0);
	assert_true(parse_ok("1969-12-31") == -86400 * INT64_C(1000));
}

static void fractional_seconds(void **state)
{
	assert_true(parse_ok("2024-06-10T08:00:00.5Z") == T_0610_0800 + 500);
	assert_true(parse_ok("2024-06-10T08:00:00.05Z") == T_0610_0800 + 50);
	assert_true(parse_ok("2024-06-10T08:00:00.123Z") == T_0610_0800 + 123);
	assert_true(parse_ok("2024-06-10T08:00:00,250Z") == T_0610_0800 + 250);
	/* digits below the millisecond are dropped */
	assert_true(parse_ok("2024-06-10T08:00:00.123999Z") == T_0610_0800 + 123);
	/* the header's example: 08:00:00.5 at +02:00 is 06:00:00.5 UTC */
	assert_true(parse_ok("2024-06-10 08:00:00.5+02:00") ==
		    T_0610_0800 - 2 * HOUR_MS + 500);
	parse_bad("2024-06-10T08:00:00.Z");
	parse_bad("2024-06-10T08:00:00.");
}

static void leap_days(void **state)
{
	/* 2024-02-29: day 19723 + 31 + 28 = 19782 */
	assert_true(parse_ok("2024-02-29") == 19782 * INT64_C(86400000));
	assert_true(parse_ok("2024-02-29T12:00:00Z") ==
		    19782 * INT64_C(86400000) + 12 * HOUR_MS);
	/* 2000 is a leap year (divisible by 400), 1900 is not (by 100) */
	assert_true(parse_ok("2000-02-29") == 11016 * INT64_C(86400000));
	parse_bad("2023-02-29");
	parse_bad("1900-02-29");
	parse_bad("2024-02-30");
}

static void impossible_dates_and_times(void **state)
{
	parse_bad("2024-13-01");
	parse_bad("2024-00-10");
	parse_bad("2024-06-00");
	parse_bad("2024-06-31"); /* June has 30 days */
	parse_bad("2024-04-31");
	parse_bad("2024-06-10T24:00:00Z");
	parse_bad("2024-06-10T08:60:00Z");
	parse_bad("2024-06-10T08:00:61Z");
	/* second 60 is a leap second: only at 23:59 UTC, where it is the next
	 * day's midnight (2016-12-31T23:59:60Z = 2017-01-01T00:00:00Z,
	 * day 17167 x 86400 s) */
	parse_bad("2024-06-10T08:00:60Z");
	parse_bad("2024-06-10T23:58:60Z");
	parse_bad("2016-12-31T23:59:60+01:00"); /* 22:59 UTC */
	assert_true(parse_ok("2016-12-31T23:59:60Z") == INT64_C(17167) * 86400000);
	assert_true(parse_ok("2017-01-01T00:59:60+01:00") == INT64_C(17167) * 86400000);
	assert_true(parse_ok("2016-12-31T23:59:60.5") ==
		    INT64_C(17167) * 86400000 + 500);
	parse_bad("2024-6-10");
	parse_bad("24-06-10");
	parse_bad("2024/06/10");
	parse_bad("2024-06-10T8:00Z");
	parse_bad("2024-06-10T");
}

static void trailing_garbage(void **state)
{
	parse_bad("2024-06-10T08:00:00Zjunk");
	parse_bad("2024-06-10T08:00:00Z ");
	parse_bad("2024-06-10x");
	parse_bad("2024-06-10T08:00:00+02:00:00");
	parse_bad("1718006400000ms");
	parse_bad("17180064 00000");
	parse_bad("x");
	parse_bad("-");
	parse_bad("");
	int64_t ms = -42;
	assert_int_equal(ct_time_parse(NULL, &ms, NULL), CT_EINVAL);
	assert_true(ms == -42);
}

static void format_and_round_trip(void **state)
{
	char buf[32];
	ct_time_format(T_0610_0800, buf);
	assert_string_equal(buf, "2024-06-10T08:00:00.000Z");
	ct_time_format(0, buf);
	assert_string_equal(buf, "1970-01-01T00:00:00.000Z");
	ct_time_format(-1, buf);
	assert_string_equal(buf, "1969-12-31T23:59:59.999Z");
	ct_time_format(19782 * INT64_C(86400000) + 86399999, buf);
	assert_string_equal(buf, "2024-02-29T23:59:59.999Z");
	ct_time_format(T_0610_0800 + 7, buf);
	assert_string_equal(buf, "2024-06-10T08:00:00.007Z");

	const int64_t t[] = {0, 1, -1, 999, -999, -1000, -1001, T_0610_0800,
			     T_0610_0800 + 123, 951782400000, /* 2000-02-29 */
			     -2208988800000, /* 1900-01-01 */
			     253402300799999 /* 9999-12-31T23:59:59.999 */};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		ct_time_format(t[i], buf);
		assert_int_equal(strlen(buf), 24);
		int64_t back = parse_ok(buf);
		if (back != t[i])
			fail_msg("%lld -> %s -> %lld", (long long)t[i], buf,
				 (long long)back);
	}
	/* the ends of int64: formatted without overflow, the year as wide as
	 * it needs (30 characters at most, within the 32-byte buffer) */
	ct_time_format(INT64_MAX, buf);
	assert_string_equal(buf, "292278994-08-17T07:12:55.807Z");
	ct_time_format(INT64_MIN, buf);
	assert_string_equal(buf, "-292275055-05-16T16:47:04.192Z");

	/* and every hour across a leap year */
	for (int64_t ms = 19723 * INT64_C(86400000);
	     ms < 20089 * INT64_C(86400000); ms += HOUR_MS + 1) {
		ct_time_format(ms, buf);
		assert_true(parse_ok(buf) == ms);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(days_from_civil),
		cmocka_unit_test(epoch_milliseconds),
		cmocka_unit_test(iso_utc),
		cmocka_unit_test(iso_with_offset),
		cmocka_unit_test(iso_without_zone_is_utc),
		cmocka_unit_test(date_alone_is_midnight),
		cmocka_unit_test(fractional_seconds),
		cmocka_unit_test(leap_days),
		cmocka_unit_test(impossible_dates_and_times),
		cmocka_unit_test(trailing_garbage),
		cmocka_unit_test(format_and_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
