#version 450
#extension GL_GOOGLE_include_directive : require
// One invocation: the record count bin_and_sort reads. Slots are reserved in
// rising order, so the records that fit are exactly [0, first_unfit) when a
// particle did not fit, else [0, requested).
#include "demo_shaderio.h"
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = kBindingCounters) buffer CountersBlock { Counters counters; };
void main() { counters.num_records = min(counters.requested, counters.first_unfit); }
