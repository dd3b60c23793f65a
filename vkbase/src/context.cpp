#include "tilesort/vkbase/context.hpp"

#include <cstdio>
#include <cstring>
#include <new>

namespace tilesort {
namespace vkbase {
namespace {

Status fail(StatusCode code, const std::string& message) noexcept { return Status(code, message.c_str()); }

bool listed(const std::vector<VkExtensionProperties>& available, const char* name) noexcept {
  for (const auto& e : available)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

}  // namespace

Status create_instance(const InstanceOptions& options, Instance* out) noexcept {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = options.app_name;
  app.apiVersion = options.api_version;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledExtensionCount = std::uint32_t(options.extensions.size());
  info.ppEnabledExtensionNames = options.extensions.data();
  VkInstance instance = VK_NULL_HANDLE;
  const VkResult r = vkCreateInstance(&info, nullptr, &instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED)
    return fail(StatusCode::missing_vulkan_support, std::string("no Vulkan driver (vkCreateInstance: ") +
                                                        to_string(r) + ")");
  if (r != VK_SUCCESS) return vk_status(r, "vkCreateInstance");
  *out = Instance(instance);
  return Status();
}

const PhysicalDevice* DeviceSelection::preferred(const std::string& name) const noexcept {
  if (usable.empty()) return nullptr;
  if (!name.empty()) {
    for (const PhysicalDevice& d : usable)
      if (std::strstr(d.name(), name.c_str())) return &d;
    return &usable.front();
  }
  for (const PhysicalDevice& d : usable)
    if (d.is_gpu()) return &d;
  return &usable.front();
}

std::string DeviceSelection::rejected_lines() const {
  std::string text;
  for (const std::string& r : rejected) text += "\n  " + r;
  return text;
}

Status select_physical_devices(VkInstance instance, const DeviceRequirements& req, DeviceSelection* out) noexcept {
  try {
    *out = DeviceSelection();
    std::uint32_t count = 0;
    VkResult r = vkEnumeratePhysicalDevices(instance, &count, nullptr);
    if (r != VK_SUCCESS) return vk_status(r, "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> devices(count);
    if (count) r = vkEnumeratePhysicalDevices(instance, &count, devices.data());
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vk_status(r, "vkEnumeratePhysicalDevices");
    devices.resize(count);
    for (VkPhysicalDevice d : devices) {
      PhysicalDevice candidate;
      candidate.handle = d;
      vkGetPhysicalDeviceProperties(d, &candidate.properties);
      const std::string name = candidate.name();
      if (!req.name_contains.empty() && name.find(req.name_contains) == std::string::npos) continue;
      if (candidate.properties.apiVersion < req.min_api_version) {
        out->rejected.push_back(name + ": needs Vulkan " + std::to_string(VK_API_VERSION_MAJOR(req.min_api_version)) +
                                "." + std::to_string(VK_API_VERSION_MINOR(req.min_api_version)) +
                                (req.timeline_semaphore ? " with timeline semaphores" : ""));
        continue;
      }
      if (req.timeline_semaphore) {
        VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        f2.pNext = &f12;
        vkGetPhysicalDeviceFeatures2(d, &f2);
        if (!f12.timelineSemaphore) {
          out->rejected.push_back(name + ": needs Vulkan 1.2 with timeline semaphores");
          continue;
        }
      }
      std::uint32_t nf = 0;
      vkGetPhysicalDeviceQueueFamilyProperties(d, &nf, nullptr);
      std::vector<VkQueueFamilyProperties> families(nf);
      vkGetPhysicalDeviceQueueFamilyProperties(d, &nf, families.data());
      bool found = false;
      for (std::uint32_t i = 0; i < nf && !found; ++i) {
        if ((families[i].queueFlags & req.queue_flags) != req.queue_flags) continue;
        if (req.present_surface != VK_NULL_HANDLE) {
          VkBool32 present = VK_FALSE;
          r = vkGetPhysicalDeviceSurfaceSupportKHR(d, i, req.present_surface, &present);
          if (r != VK_SUCCESS) return vk_status(r, "vkGetPhysicalDeviceSurfaceSupportKHR");
          if (!present) continue;
        }
        candidate.queue_family = i;
        found = true;
      }
      if (!found) {
        const bool graphics = req.queue_flags & VK_QUEUE_GRAPHICS_BIT;
        const bool present = req.present_surface != VK_NULL_HANDLE;
        out->rejected.push_back(name + (graphics || present ? std::string(": no queue with ") +
                                                                  (graphics ? "graphics, compute" : "compute") +
                                                                  (present ? " and present" : "")
                                                            : std::string(": no compute queue")));
        continue;
      }
      out->usable.push_back(candidate);
    }
    return Status();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::vulkan_error, "select_physical_devices: out of host memory");
  }
}

Context& Context::operator=(Context&& o) noexcept {
  if (this != &o) {
    reset();
    // The owners move in any order: nothing is destroyed here.
    instance_ = std::move(o.instance_);
    physical_ = o.physical_;
    device_ = std::move(o.device_);
    queue_ = o.queue_;
    pool_ = std::move(o.pool_);
    extensions_ = std::move(o.extensions_);
    timeline_ = o.timeline_;
    shader_clock_ = o.shader_clock_;
    o.reset();
  }
  return *this;
}

void Context::reset() noexcept {
  pool_.reset();
  device_.reset();  // waits for the device to go idle
  instance_.reset();
  physical_ = PhysicalDevice();
  queue_ = VK_NULL_HANDLE;
  extensions_.clear();
  timeline_ = shader_clock_ = false;
}

Status Context::create(Instance instance, const PhysicalDevice& physical, const DeviceOptions& options,
                       Context* out) noexcept {
  try {
    Context c;
    c.instance_ = std::move(instance);
    c.physical_ = physical;
    const std::string name = physical.name();

    std::uint32_t n = 0;
    VkResult r = vkEnumerateDeviceExtensionProperties(physical.handle, nullptr, &n, nullptr);
    if (r != VK_SUCCESS) return vk_status(r, "vkEnumerateDeviceExtensionProperties");
    std::vector<VkExtensionProperties> available(n);
    r = vkEnumerateDeviceExtensionProperties(physical.handle, nullptr, &n, available.data());
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vk_status(r, "vkEnumerateDeviceExtensionProperties");

    std::vector<const char*> extensions;
    std::string missing;
    for (const char* e : options.extensions) {
      if (!listed(available, e)) missing += std::string(missing.empty() ? "" : ", ") + e;
      extensions.push_back(e);
    }
    if (!missing.empty())
      return fail(StatusCode::missing_vulkan_support, name + " lacks the device extension(s) " + missing);
    for (const char* e : options.optional_extensions)
      if (listed(available, e)) extensions.push_back(e);

    VkPhysicalDeviceShaderClockFeaturesKHR clock_supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
    VkPhysicalDeviceVulkan12Features supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    // Chained only where offered: a query may carry only structures the device knows.
    if (listed(available, VK_KHR_SHADER_CLOCK_EXTENSION_NAME)) supported.pNext = &clock_supported;
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &supported;
    vkGetPhysicalDeviceFeatures2(physical.handle, &f2);

    VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    if (options.timeline_semaphore == Want::required && !supported.timelineSemaphore)
      return fail(StatusCode::missing_vulkan_support, name + " has no timelineSemaphore feature");
    features12.timelineSemaphore = options.timeline_semaphore != Want::no && supported.timelineSemaphore;

    VkPhysicalDeviceShaderClockFeaturesKHR clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
    if (options.shader_device_clock != Want::no) {
      const bool offered = listed(available, VK_KHR_SHADER_CLOCK_EXTENSION_NAME) && clock_supported.shaderDeviceClock;
      if (!offered && options.shader_device_clock == Want::required)
        return fail(StatusCode::missing_vulkan_support, name + " has no VK_KHR_shader_clock shaderDeviceClock");
      if (offered) {
        extensions.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
        clock.shaderDeviceClock = VK_TRUE;
        features12.pNext = &clock;
      }
    }

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueFamilyIndex = physical.queue_family;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    info.pNext = &features12;
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue_info;
    info.enabledExtensionCount = std::uint32_t(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VkDevice device = VK_NULL_HANDLE;
    r = vkCreateDevice(physical.handle, &info, nullptr, &device);
    if (r != VK_SUCCESS) return vk_status(r, ("vkCreateDevice on " + name).c_str());
    c.device_ = Device(device);
    vkGetDeviceQueue(device, physical.queue_family, 0, &c.queue_);

    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool_info.queueFamilyIndex = physical.queue_family;
    VkCommandPool pool = VK_NULL_HANDLE;
    r = vkCreateCommandPool(device, &pool_info, nullptr, &pool);
    if (r != VK_SUCCESS) return vk_status(r, "vkCreateCommandPool");
    c.pool_ = CommandPool(device, pool);

    for (const char* e : extensions) c.extensions_.push_back(e);
    c.timeline_ = features12.timelineSemaphore == VK_TRUE;
    c.shader_clock_ = clock.shaderDeviceClock == VK_TRUE;
    *out = std::move(c);
    return Status();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::vulkan_error, "Context::create: out of host memory");
  }
}

bool Context::extension_enabled(const char* name) const noexcept {
  for (const std::string& e : extensions_)
    if (e == name) return true;
  return false;
}

int find_memory_type(VkPhysicalDevice physical, std::uint32_t type_bits, VkMemoryPropertyFlags want,
                     VkMemoryPropertyFlags fallback) noexcept {
  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(physical, &mem);
  for (VkMemoryPropertyFlags flags : {want, fallback})
    for (std::uint32_t i = 0; i < mem.memoryTypeCount; ++i)
      if ((type_bits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & flags) == flags) return int(i);
  return -1;
}

Status Context::allocate_command_buffers(std::uint32_t count, VkCommandBuffer* out) const noexcept {
  VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  info.commandPool = pool_;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = count;
  return vk_status(vkAllocateCommandBuffers(device_.get(), &info, out), "vkAllocateCommandBuffers");
}

Status Context::submit_and_wait(VkCommandBuffer cmd) const noexcept {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  const Status s = vk_status(vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
  if (!s.ok()) return s;
  return vk_status(vkQueueWaitIdle(queue_), "vkQueueWaitIdle");
}

Status create_compute_context(const ComputeContextOptions& options, Context* out) noexcept {
  try {
    Instance instance;
    InstanceOptions io;
    io.app_name = options.app_name;
    io.api_version = options.requirements.min_api_version;
    Status s = create_instance(io, &instance);
    if (!s.ok()) return s;
    DeviceSelection found;
    s = select_physical_devices(instance.get(), options.requirements, &found);
    if (!s.ok()) return s;
    const PhysicalDevice* pick = found.preferred(options.prefer_name);
    if (!pick) return fail(StatusCode::missing_vulkan_support, "no usable Vulkan device" + found.rejected_lines());
    return Context::create(std::move(instance), *pick, options.device, out);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::vulkan_error, "create_compute_context: out of host memory");
  }
}

}  // namespace vkbase
}  // namespace tilesort
