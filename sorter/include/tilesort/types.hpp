// tilesort: the key, value, offset and order types every layer names: the
// host API, and the block, warp and thread sorts for device code, which
// include this header alone so that kernels need none of the host API.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilesort {

enum class KeyType : std::uint8_t { u32, i32, f32, u64, i64, f64 };
/// Values are opaque payloads moved with their keys.
enum class ValueType : std::uint8_t { none, b32, b64 };
enum class OffsetType : std::uint8_t { u32, u64 };
enum class Order : std::uint8_t { ascending, descending };

/// Bytes of one key / value of the given type (0 for ValueType::none).
std::size_t size_of(KeyType type) noexcept;
std::size_t size_of(ValueType type) noexcept;

/// Maps C++ types to the enums above: key_type_of<float>() == KeyType::f32.
template <class T> constexpr KeyType key_type_of();
template <> constexpr KeyType key_type_of<std::uint32_t>() { return KeyType::u32; }
template <> constexpr KeyType key_type_of<std::int32_t>() { return KeyType::i32; }
template <> constexpr KeyType key_type_of<float>() { return KeyType::f32; }
template <> constexpr KeyType key_type_of<std::uint64_t>() { return KeyType::u64; }
template <> constexpr KeyType key_type_of<std::int64_t>() { return KeyType::i64; }
template <> constexpr KeyType key_type_of<double>() { return KeyType::f64; }

}  // namespace tilesort
