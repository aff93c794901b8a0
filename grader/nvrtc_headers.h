/*
 * Internal to grader/: the standard headers a kernel may include, which
 * NVRTC does not ship (see nvrtc_headers.c).
 */
#ifndef KGRADE_GRADER_NVRTC_HEADERS_H
#define KGRADE_GRADER_NVRTC_HEADERS_H

/* The in-memory headers for nvrtcCreateProgram: names and contents. */
extern const int nvrtc_header_count;
extern const char *const nvrtc_header_names[];
extern const char *const nvrtc_header_sources[];

/* -I options for the toolkit's own headers (cuda_fp16.h,
 * cooperative_groups.h, cuda/std/...); NULL-free, nvrtc_include_count long. */
extern const int nvrtc_include_count;
extern const char *const nvrtc_include_options[];

#endif
