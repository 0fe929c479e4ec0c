/* near.h: the engine tests' comparison of doubles within a tolerance
 * (include after cmocka.h and math.h). */
#ifndef CRAWLTOP_TEST_NEAR_H
#define CRAWLTOP_TEST_NEAR_H

#define ASSERT_NEAR(got, want, eps) do { \
	double near_got_ = (got), near_want_ = (want); \
	if (!(fabs(near_got_ - near_want_) <= (eps))) \
		fail_msg("%s = %.17g, expected %.17g (+-%g)", #got, \
			 near_got_, near_want_, (double)(eps)); \
} while (0)

#endif
