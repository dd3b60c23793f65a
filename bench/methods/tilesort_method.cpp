// tilesort: the library under test, used as a renderer would use it: one
// workspace allocated up front, sorting in place, with the item and segment
// counts read from device memory (written by earlier stream work).
#include <tilesort/tilesort.hpp>

#include <string>

#include "cuda_check.hpp"
#include "methods/method.hpp"

namespace bench {
namespace {

tilesort::KeyType to_tilesort(KeyKind key) {
  switch (key) {
    case KeyKind::u32: return tilesort::KeyType::u32;
    case KeyKind::f32: return tilesort::KeyType::f32;
    case KeyKind::u64: return tilesort::KeyType::u64;
    case KeyKind::f64: return tilesort::KeyType::f64;
  }
  throw MethodUnavailable("unknown key type");
}

std::string describe(const char* call, const tilesort::Status& status) {
  return std::string(call) + " returned " + tilesort::to_string(status.code()) + ": " + status.what();
}

class TilesortMethod final : public Method {
 public:
  explicit TilesortMethod(const Problem& p) {
    plan_.key_type = to_tilesort(p.key);
    plan_.value_type = p.has_values ? tilesort::ValueType::b32 : tilesort::ValueType::none;
    plan_.offset_type = tilesort::OffsetType::u32;
    plan_.max_items = p.num_items;
    plan_.max_segments = p.num_segments;
    // No promise (the general configuration) unless --bounded-plan.
    plan_.max_segment_items = p.promised_max_segment;

    std::size_t bytes = 0;
    const tilesort::Status status = tilesort::segmented_sort_workspace_size(plan_, &bytes);
    if (!status) throw MethodUnavailable(describe("segmented_sort_workspace_size", status));
    workspace_ = DeviceBuffer(bytes);

    args_.keys = p.keys;
    args_.values = p.has_values ? p.values : nullptr;
    args_.offsets = p.offsets;
    args_.d_num_segments = p.d_num_segments;
    args_.d_num_items = p.d_num_items;
    args_.begin_bit = p.begin_bit;
    args_.end_bit = p.end_bit;
    output_ = {p.keys, args_.values != nullptr ? p.values : nullptr};
  }

  std::string run(cudaStream_t stream) override {
    const tilesort::Status status =
        tilesort::segmented_sort(workspace_.get(), workspace_.bytes(), plan_, args_, stream);
    return status ? std::string() : describe("segmented_sort", status);
  }

  std::string check_after_run(cudaStream_t stream) override {
    // Waits for the stream; it runs after the stop event, so it is not timed.
    const tilesort::Status status = tilesort::read_device_status(workspace_.get(), stream);
    return status ? std::string() : describe("read_device_status", status);
  }

  Output output() const override { return output_; }

 private:
  tilesort::SortPlan plan_;
  tilesort::SortArgs args_;
  DeviceBuffer workspace_;
  Output output_;
};

}  // namespace

std::unique_ptr<Method> make_tilesort(const Problem& problem) {
  return std::make_unique<TilesortMethod>(problem);
}

}  // namespace bench
