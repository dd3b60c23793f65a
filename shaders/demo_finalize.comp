#version 450
// One invocation: the record count bin_and_sort reads. Slots are reserved in
// rising order, so the records that fit are exactly [0, first_unfit) when a
// particle did not fit, else [0, requested).
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 4) buffer Counters {
  uint requested;
  uint first_unfit;
  uint num_records;
  uint max_tile;
} counters;
void main() { counters.num_records = min(counters.requested, counters.first_unfit); }
