// The cuda halves, one defined in each file of this folder, for the table in registry.cpp.
#pragma once

#include "real/cuda/device_codec.hpp"

namespace dtsim::real::cuda::codecs {

const DeviceCodec& fp16();
const DeviceCodec& bf16();
const DeviceCodec& int8();
const DeviceCodec& topk();
const DeviceCodec& randomk();
const DeviceCodec& sign();
const DeviceCodec& powersgd();

}  // namespace dtsim::real::cuda::codecs
