#include "tilesort/interop/handoff.hpp"

#include <cuda.h>  // driver types and enums only: the functions come from cudaGetDriverEntryPointByVersion
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "cuda_device_scope.hpp"

namespace tilesort {
namespace interop {
namespace {

using WaitValue64 = CUresult (*)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
using WriteValue64 = CUresult (*)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
using DeviceGet = CUresult (*)(CUdevice*, int);
using DeviceGetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);

/// The driver entry points, resolved once (the versions with the CUDA 12 ABI).
struct DriverMemOps {
  WaitValue64 wait = nullptr;
  WriteValue64 write = nullptr;
  DeviceGet device_get = nullptr;
  DeviceGetAttribute attribute = nullptr;
  char error[160] = {};
};

template <class F>
bool resolve(const char* name, F* out, char* error, std::size_t error_size) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found);
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == nullptr) {
    (void)cudaGetLastError();
    std::snprintf(error, error_size, "the CUDA driver has no %s (cudaGetDriverEntryPointByVersion: %s)", name,
                  e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
    return false;
  }
  *out = reinterpret_cast<F>(fn);
  return true;
}

const DriverMemOps& driver() {
  static const DriverMemOps ops = [] {
    DriverMemOps d;
    if (resolve("cuStreamWaitValue64", &d.wait, d.error, sizeof d.error) &&
        resolve("cuStreamWriteValue64", &d.write, d.error, sizeof d.error) &&
        resolve("cuDeviceGet", &d.device_get, d.error, sizeof d.error) &&
        resolve("cuDeviceGetAttribute", &d.attribute, d.error, sizeof d.error))
      d.error[0] = '\0';
    return d;
  }();
  return ops;
}

Status driver_status(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return Status();
  char message[160];
  std::snprintf(message, sizeof message, "%s failed (CUresult %d)", what, int(r));
  return Status(StatusCode::cuda_error, message);
}

}  // namespace

const char* to_string(Handoff h) noexcept {
  switch (h) {
    case Handoff::semaphore: return "semaphore";
    case Handoff::memory_word: return "memory_word";
  }
  return "?";
}

Status query_memory_word_support(int cuda_device) noexcept {
  const DriverMemOps& d = driver();
  if (d.error[0] != '\0') return Status(StatusCode::cuda_error, d.error);
  CUdevice dev = 0;
  Status st = driver_status(d.device_get(&dev, cuda_device), "cuDeviceGet");
  if (!st) return st;
  int supported = 0;
  st = driver_status(d.attribute(&supported, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev),
                     "cuDeviceGetAttribute(CAN_USE_64_BIT_STREAM_MEM_OPS)");
  if (!st) return st;
  if (!supported)
    return Status(StatusCode::cuda_error, "the CUDA device has no 64-bit stream memory operations "
                  "(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS is 0)");
  return Status();
}

Status SharedWord::create(const VulkanDevice& device, int cuda_device, SharedWord* out) noexcept {
  if (out == nullptr) return Status(StatusCode::invalid_argument, "SharedWord::create: null output");
  Status st = query_memory_word_support(cuda_device);
  if (!st) return st;
  SharedWord w;
  st = SharedBuffer::create(device, cuda_device, sizeof(std::uint64_t), &w.buffer_);
  if (!st) return st;
  detail::CudaDeviceScope scope;
  st = scope.enter(cuda_device);
  if (!st) return st;
  // Zero before any use, and wait: nothing else orders this against the first batch.
  cudaError_t e = cudaMemset(w.buffer_.cuda_ptr(), 0, sizeof(std::uint64_t));
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return Status::from_cuda(e, "SharedWord::create: zeroing the word");
  }
  *out = std::move(w);
  return Status();
}

void SharedWord::record_vk_write(VkCommandBuffer cmd, std::uint64_t value) const noexcept {
  VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  before.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  before.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                       nullptr, 0, nullptr);
  vkCmdUpdateBuffer(cmd, buffer_.vk_buffer(), 0, sizeof value, &value);
  VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  after.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                       0, 1, &after, 0, nullptr, 0, nullptr);
}

namespace {
/// One stream memory operation (`op`, given the word's device address) with
/// the word's CUDA device current, and the caller's restored after.
template <class Op>
Status word_stream_op(const SharedWord& w, const char* caller, const char* what, Op op) {
  if (!w.valid()) return Status(StatusCode::invalid_argument, (std::string(caller) + ": empty word").c_str());
  detail::CudaDeviceScope scope;
  const Status st = scope.enter(w.cuda_device());
  if (!st) return st;
  return driver_status(op(CUdeviceptr(w.cuda_ptr())), what);
}
}  // namespace

Status SharedWord::cuda_wait(std::uint64_t value, CUstream_st* stream) const noexcept {
  return word_stream_op(*this, "SharedWord::cuda_wait", "cuStreamWaitValue64", [&](CUdeviceptr word) {
    return driver().wait(stream, word, value, CU_STREAM_WAIT_VALUE_GEQ);
  });
}

Status SharedWord::cuda_write(std::uint64_t value, CUstream_st* stream) const noexcept {
  return word_stream_op(*this, "SharedWord::cuda_write", "cuStreamWriteValue64", [&](CUdeviceptr word) {
    return driver().write(stream, word, value, CU_STREAM_WRITE_VALUE_DEFAULT);
  });
}

}  // namespace interop
}  // namespace tilesort
