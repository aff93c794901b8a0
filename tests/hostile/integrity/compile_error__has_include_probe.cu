// __has_include probes every place a secret could be and reports through
// #error which one exists, without including anything. The grading job must
// see none of them, while the toolkit's headers stay visible.
#if !__has_include(<cuda_fp16.h>)
#error "probe: the toolkit's headers are not visible"
#elif __has_include("@EXERCISE_DIR@/reference.cu")
#error "probe: found the reference"
#elif __has_include("@EXERCISE_DIR@/exercise.json")
#error "probe: found the exercise's definition"
#elif __has_include("@EXERCISE_DIR@/starter.cu")
#error "probe: found the exercise folder"
#elif __has_include("@EXERCISE_DIR@/solutions/@SOLUTION@")
#error "probe: found a solution"
#elif __has_include("reference.cu") || __has_include("@EXERCISE_REL@/reference.cu")
#error "probe: found the reference by a relative path"
#elif __has_include("@DATA@/kgrade.db")
#error "probe: found the database"
#elif __has_include("@DATA@/signing.key")
#error "probe: found the signing key"
#elif __has_include("@SOURCE@/grader/grade.c")
#error "probe: found kgrade's sources"
#elif __has_include("@KGRADE@")
#error "probe: found the kgrade binary"
#elif __has_include("/usr/lib/os-release") || __has_include("/etc/passwd")
#error "probe: found host files"
#else
#error "probe: nothing in view"
#endif
