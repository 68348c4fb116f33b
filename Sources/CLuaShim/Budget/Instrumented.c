/*
 * Whether this build of the shim is instrumented by a sanitizer. AddressSanitizer and
 * ThreadSanitizer make every memory access a call into their runtime, and run the same work
 * 5 to 20 times slower; a wall-clock limit sized for the app's build would then stop healthy
 * policies. LuaLimits reads this once to stretch its default time limit and deadline margin by
 * the same factor. Counting limits (instructions, bytes) are unchanged: they measure work, not
 * time. SwiftPM's --sanitize compiles C targets with the same -fsanitize flag as Swift ones, so
 * the answer here is the answer for the whole binary.
 */
#include "permit_sandbox.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PERMIT_INSTRUMENTED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PERMIT_INSTRUMENTED 1
#endif

int permit_instrumented_slowdown(void) {
#if defined(PERMIT_INSTRUMENTED)
    return 10;
#else
    return 1;
#endif
}
