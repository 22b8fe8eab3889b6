// What the codecs of this folder share: their factories, one defined in each file, for the table
// in registry.cpp, and the wire's packing (two 16-bit values per float slot, indices as a float's bits).
#pragma once

#include <bit>
#include <cstdint>
#include <memory>

#include "real/codec.hpp"

namespace dtsim::real::codecs {

struct CodecArgs {
  const CompressionSpec& spec;
  std::int64_t n;
  int workers, me;
  std::uint64_t seed;
};

std::unique_ptr<Codec> fp16(const CodecArgs& a);
std::unique_ptr<Codec> bf16(const CodecArgs& a);
std::unique_ptr<Codec> int8(const CodecArgs& a);
std::unique_ptr<Codec> qsgd(const CodecArgs& a);
std::unique_ptr<Codec> topk(const CodecArgs& a);
std::unique_ptr<Codec> randomk(const CodecArgs& a);
std::unique_ptr<Codec> sign(const CodecArgs& a);
std::unique_ptr<Codec> powersgd(const CodecArgs& a);

// Two 16-bit values in one float slot (low half first).
inline void put16(float* wire, std::int64_t i, std::uint16_t v) {
  std::uint32_t slot = std::bit_cast<std::uint32_t>(wire[i / 2]);
  const auto shift = static_cast<unsigned>((i % 2) * 16);
  slot = (slot & ~(0xffffu << shift)) | (static_cast<std::uint32_t>(v) << shift);
  wire[i / 2] = std::bit_cast<float>(slot);
}

inline std::uint16_t get16(const float* wire, std::int64_t i) {
  const std::uint32_t slot = std::bit_cast<std::uint32_t>(wire[i / 2]);
  return static_cast<std::uint16_t>(slot >> ((i % 2) * 16));
}

// A sparse pair's index, carried in a float slot's bits.
inline float index_bits(std::int64_t i) { return std::bit_cast<float>(static_cast<std::uint32_t>(i)); }
inline std::int64_t index_of(float f) { return std::bit_cast<std::uint32_t>(f); }

}  // namespace dtsim::real::codecs
