/* SPDX-License-Identifier: MIT */
/* What the driver says a stream is: its kind (legacy, per-thread, blocking or not), priority and id. */
#ifndef REPRISE_STREAM_FACTS_H
#define REPRISE_STREAM_FACTS_H

#include <cuda_runtime_api.h>

#include "stream_filter.h"

/* A stream's kind; a stream whose flags cannot be read counts as blocking (that only adds order). */
enum stream_kind stream_kind_of(cudaStream_t stream);

/* A stream's kind, priority (0 if unknown) and id (0 if unknown), for REPRISE_EXCLUDE_STREAMS and the log. */
struct stream_facts stream_facts_of(cudaStream_t stream);

#endif
