#include "tilesort/interop/device.hpp"

#include "tilesort/vkbase/handles.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace tilesort {
namespace interop {

// One list of VkResult names, in tilesort::vkbase.
const char* to_string(VkResult result) noexcept { return vkbase::to_string(result); }

Status vulkan_status(VkResult result, const char* what) noexcept { return vkbase::vk_status(result, what); }

std::vector<const char*> instance_extensions() { return {}; }

std::vector<const char*> device_extensions() {
  return {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
}

RequiredFeatures::RequiredFeatures() noexcept {
  vulkan12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  vulkan12.timelineSemaphore = VK_TRUE;
}

void* RequiredFeatures::chain(void* next) noexcept {
  vulkan12.pNext = next;
  return &vulkan12;
}

namespace {

bool has_extension(const std::vector<VkExtensionProperties>& list, const char* name) {
  for (const auto& e : list)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

}  // namespace

Status query_device_support(VkPhysicalDevice physical, DeviceSupport* out) noexcept {
  if (physical == VK_NULL_HANDLE || out == nullptr)
    return Status(StatusCode::invalid_argument, "query_device_support: null physical device or output");
  try {
    DeviceSupport s;
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(physical, &props);
    s.device_name = props.deviceName;
    s.api_version = props.apiVersion;
    s.api_version_ok = props.apiVersion >= kMinVulkanApiVersion;

    std::uint32_t count = 0;
    VkResult r = vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
    if (r != VK_SUCCESS) return vulkan_status(r, "vkEnumerateDeviceExtensionProperties");
    std::vector<VkExtensionProperties> extensions(count);
    r = vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data());
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vulkan_status(r, "vkEnumerateDeviceExtensionProperties");
    extensions.resize(count);
    s.external_memory_fd = has_extension(extensions, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    s.external_semaphore_fd = has_extension(extensions, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);

    if (s.api_version_ok) {
      VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
      VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
      f2.pNext = &f12;
      vkGetPhysicalDeviceFeatures2(physical, &f2);
      s.timeline_semaphore = f12.timelineSemaphore == VK_TRUE;

      VkPhysicalDeviceExternalBufferInfo buffer_info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
      buffer_info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                          VK_BUFFER_USAGE_TRANSFER_DST_BIT;
      buffer_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
      VkExternalBufferProperties buffer_props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
      vkGetPhysicalDeviceExternalBufferProperties(physical, &buffer_info, &buffer_props);
      s.exportable_buffer_memory = (buffer_props.externalMemoryProperties.externalMemoryFeatures &
                                    VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0;

      VkSemaphoreTypeCreateInfo type_info{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
      type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
      VkPhysicalDeviceExternalSemaphoreInfo sem_info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
      sem_info.pNext = &type_info;
      sem_info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
      VkExternalSemaphoreProperties sem_props{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
      vkGetPhysicalDeviceExternalSemaphoreProperties(physical, &sem_info, &sem_props);
      s.exportable_timeline_semaphore =
          (sem_props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0;
    }

    if (!s.api_version_ok) {
      char line[96];
      std::snprintf(line, sizeof line, "Vulkan API %u.%u (1.2 or newer needed for timeline semaphores)",
                    VK_API_VERSION_MAJOR(s.api_version), VK_API_VERSION_MINOR(s.api_version));
      s.missing.push_back(line);
    }
    if (!s.external_memory_fd)
      s.missing.push_back("device extension " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME " (share buffer memory)");
    if (!s.external_semaphore_fd)
      s.missing.push_back("device extension " VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME " (share semaphores)");
    if (s.api_version_ok && !s.timeline_semaphore)
      s.missing.push_back("feature timelineSemaphore (VkPhysicalDeviceVulkan12Features)");
    if (s.api_version_ok && s.external_memory_fd && !s.exportable_buffer_memory)
      s.missing.push_back("opaque-fd export of storage-buffer memory");
    if (s.api_version_ok && s.external_semaphore_fd && s.timeline_semaphore && !s.exportable_timeline_semaphore)
      s.missing.push_back("opaque-fd export of timeline semaphores");
    *out = std::move(s);
    return Status();
  } catch (...) {
    return Status(StatusCode::invalid_argument, "query_device_support: out of host memory");
  }
}

Status check_device_support(VkPhysicalDevice physical) noexcept {
  DeviceSupport s;
  Status st = query_device_support(physical, &s);
  if (!st) return st;
  if (s.complete()) return Status();
  std::string text = "'" + s.device_name + "' lacks: ";
  for (std::size_t i = 0; i < s.missing.size(); ++i) text += (i ? "; " : "") + s.missing[i];
  return Status(StatusCode::missing_vulkan_support, text.c_str());
}

std::string to_string(const DeviceUuid& uuid) {
  std::string out;
  char hex[3];
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(hex, sizeof hex, "%02x", uuid[i]);
    out += hex;
  }
  return out;
}

Status match_cuda_device(DeviceMatchReport* report) noexcept {
  if (report == nullptr) return Status(StatusCode::invalid_argument, "match_cuda_device: null report");
  report->matched = -1;
  for (const auto& d : report->cuda_devices) {
    if (d.uuid == report->vulkan_uuid) {
      report->matched = d.ordinal;
      return Status();
    }
  }
  try {
    // Status's message has a fixed capacity (it never allocates), and a cut
    // one could end inside a UUID, which is what tells the devices apart. So
    // the message drops the CUDA devices' names, then devices, until it
    // fits; the report has everything.
    const auto shortened = [](const std::string& name) {
      constexpr std::size_t kNameMax = 48;
      return name.size() <= kNameMax ? name : name.substr(0, kNameMax - 3) + "...";
    };
    const std::string head = "Vulkan device '" + shortened(report->vulkan_name) + "' (UUID " +
                             to_string(report->vulkan_uuid) + ") is none of the " +
                             std::to_string(report->cuda_devices.size()) + " CUDA device(s):";
    const std::size_t budget = Status::message_room(StatusCode::device_mismatch);
    const auto listed = [&](bool with_names, std::size_t devices) {
      std::string text = head;
      for (std::size_t i = 0; i < devices; ++i) {
        const auto& d = report->cuda_devices[i];
        text += " #" + std::to_string(d.ordinal) + (with_names ? " '" + shortened(d.name) + "'" : std::string()) +
                " " + to_string(d.uuid) + ";";
      }
      if (devices < report->cuda_devices.size())
        text += " and " + std::to_string(report->cuda_devices.size() - devices) + " more (see the report)";
      return text;
    };
    const std::size_t all = report->cuda_devices.size();
    std::string text = listed(true, all);
    if (text.size() > budget) text = listed(false, all);
    for (std::size_t devices = all; text.size() > budget && devices > 0; --devices) text = listed(false, devices - 1);
    return Status(StatusCode::device_mismatch, text.c_str());
  } catch (...) {
    return Status(StatusCode::device_mismatch, "no CUDA device has the Vulkan device's UUID");
  }
}

Status find_cuda_device(VkPhysicalDevice physical, int* cuda_device, DeviceMatchReport* report) noexcept {
  if (physical == VK_NULL_HANDLE || cuda_device == nullptr)
    return Status(StatusCode::invalid_argument, "find_cuda_device: null physical device or output");
  *cuda_device = -1;
  try {
    DeviceMatchReport local;
    DeviceMatchReport& r = report ? *report : local;
    r = DeviceMatchReport();

    VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &id;
    vkGetPhysicalDeviceProperties2(physical, &props);
    r.vulkan_name = props.properties.deviceName;
    std::memcpy(r.vulkan_uuid.data(), id.deviceUUID, VK_UUID_SIZE);

    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return Status::from_cuda(e, "find_cuda_device: cudaGetDeviceCount");
    }
    for (int i = 0; i < count; ++i) {
      cudaDeviceProp prop{};
      e = cudaGetDeviceProperties(&prop, i);
      if (e != cudaSuccess) return Status::from_cuda(e, "find_cuda_device: cudaGetDeviceProperties");
      DeviceMatchReport::CudaDevice d;
      d.ordinal = i;
      d.name = prop.name;
      std::memcpy(d.uuid.data(), prop.uuid.bytes, 16);
      r.cuda_devices.push_back(d);
    }
    Status st = match_cuda_device(&r);
    if (st) *cuda_device = r.matched;
    return st;
  } catch (...) {
    return Status(StatusCode::invalid_argument, "find_cuda_device: out of host memory");
  }
}

Status VulkanDevice::create(VkInstance instance, VkPhysicalDevice physical, VkDevice device, VulkanDevice* out,
                            Require require) noexcept {
  if (instance == VK_NULL_HANDLE || physical == VK_NULL_HANDLE || device == VK_NULL_HANDLE || out == nullptr)
    return Status(StatusCode::invalid_argument, "VulkanDevice::create: null instance, physical device, device or output");
  VulkanDevice d;
  d.instance_ = instance;
  d.physical_ = physical;
  d.device_ = device;
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(physical, &props);
  if (props.apiVersion < kMinVulkanApiVersion)
    return Status(StatusCode::missing_vulkan_support, "Vulkan 1.2 or newer is needed (timeline semaphores)");
  // vkGetDeviceProcAddr returns null for entry points of extensions that were
  // not enabled on `device`: that is how "not enabled" is told apart from
  // "not supported" (which query_device_support reports).
  d.get_memory_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device, "vkGetMemoryFdKHR"));
  d.get_semaphore_fd = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(device, "vkGetSemaphoreFdKHR"));
  std::string missing;
  if (!d.get_memory_fd) missing += " " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
  if (!d.get_semaphore_fd) missing += " " VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &f12;
  vkGetPhysicalDeviceFeatures2(physical, &f2);
  if (f12.timelineSemaphore != VK_TRUE) missing += " timelineSemaphore(feature)";
  if (!missing.empty() && require == Require::all) {
    std::string text = "not enabled on the VkDevice:" + missing + " (enable device_extensions(), RequiredFeatures)";
    return Status(StatusCode::missing_vulkan_support, text.c_str());
  }
  *out = d;
  return Status();
}

int VulkanDevice::find_memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags flags) const noexcept {
  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(physical_, &mem);
  for (std::uint32_t i = 0; i < mem.memoryTypeCount; ++i)
    if ((type_bits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & flags) == flags) return int(i);
  return -1;
}

}  // namespace interop
}  // namespace tilesort
