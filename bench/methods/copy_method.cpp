// copy: the floor. A one-pass in-place sort must at least read every pair
// and write it back; a device-to-device copy of the same bytes does exactly
// that and nothing else (ANCHORS.md: "x copy").
#include "cuda_check.hpp"
#include "methods/method.hpp"

namespace bench {
namespace {

class CopyMethod final : public Method {
 public:
  explicit CopyMethod(const Problem& p) : problem_(p), destination_(p.packed_bytes) {}

  void prepare_run(cudaStream_t stream) override {
    BENCH_CUDA_CHECK(cudaMemsetAsync(destination_.get(), kPoisonByte, destination_.bytes(), stream));
  }

  std::string run(cudaStream_t stream) override {
    // One call for keys and values: they are contiguous in `packed`, and one
    // copy has less fixed cost than two (it matters at 4M pairs: ~30 us).
    BENCH_CUDA_RETURN_ERROR(cudaMemcpyAsync(destination_.get(), problem_.packed, problem_.packed_bytes,
                                     cudaMemcpyDeviceToDevice, stream));
    return {};
  }

  Output output() const override {
    const auto* base = destination_.as<unsigned char>();
    return {base, problem_.has_values ? reinterpret_cast<const Value*>(base + problem_.values_offset) : nullptr};
  }

 private:
  Problem problem_;
  DeviceBuffer destination_;
};

}  // namespace

std::unique_ptr<Method> make_copy(const Problem& problem) { return std::make_unique<CopyMethod>(problem); }

}  // namespace bench
