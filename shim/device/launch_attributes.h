/* SPDX-License-Identifier: MIT */
/* A launch's attributes (cuLaunchKernelEx's, cudaLaunchKernelExC's) as the shim takes them: policy/launch_attrs.def. */
#ifndef REPRISE_LAUNCH_ATTRIBUTES_H
#define REPRISE_LAUNCH_ATTRIBUTES_H

#include <stdbool.h>

/* The most attributes a held-back launch may carry: one with more ends a region. */
#define LAUNCH_ATTRS_MAX 8

/*
 * Whether a launch made through api (its name, for the log) with count
 * attributes at attrs (an array of CUlaunchAttribute, or of the runtime's
 * cudaLaunchAttribute: the same layout) can be held back: none is a
 * boundary (policy/launch_attrs.def).  A boundary's attribute is logged by
 * name, once.  Allocates nothing, takes no lock.
 */
bool launch_attrs_holdable(const void *attrs, unsigned count, const char *api);

/* Whether such a launch is a programmatic dependent launch (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, non-zero). */
bool launch_attrs_programmatic(const void *attrs, unsigned count);

/* Whether a kernel node is given attribute id (cuGraphKernelNodeSetAttribute): the table's KEPT ones. */
bool launch_attr_on_node(unsigned id);

#endif
