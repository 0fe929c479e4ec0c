/* tier.c: job priority 1..10 (seed 001). */
#include <errno.h>
#include <stdlib.h>

#include "crawltop/number.h"
#include "crawltop/tier.h"

bool ct_priority_valid(long p)
{
	return p >= CT_PRIORITY_MIN && p <= CT_PRIORITY_MAX;
}

/* Whole-string decimal; never clamps. */
ct_status ct_priority_parse(const char *s, int *out, struct ct_error *err)
{
	if (!s || !*s)
		return ct_error_set(err, CT_EINVAL,
			"priority is empty: must be an integer 1..10 (1 = most urgent)");
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!ct_number_text(s, false) || *end != '\0' || errno)
		return ct_error_set(err, CT_EINVAL,
			"priority '%s': must be an integer 1..10 (1 = most urgent)", s);
	if (!ct_priority_valid(v))
		return ct_error_set(err, CT_ERANGE,
			"priority %ld: must be 1..10 (1 = most urgent)", v);
	*out = (int)v;
	return CT_OK;
}

const char *ct_priority_label(int p)
{
	static const char *const label[] = {
		[1] = "Critical system tasks",
		[2] = "User-initiated urgent crawls",
		[3] = "Premium-tier customers",
		[4] = "Time-sensitive crawls",
		[5] = "Standard crawls (default)",
		[6] = "Background/discovery tasks",
		[7] = "Background/discovery tasks",
		[8] = "Deep crawls, not time-sensitive",
		[9] = "Deep crawls, not time-sensitive",
		[10] = "Lowest-priority maintenance",
	};
	return ct_priority_valid(p) ? label[p] : "invalid priority";
}
