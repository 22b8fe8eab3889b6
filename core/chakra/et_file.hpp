// Reading and writing one rank's Chakra trace file: varint32-delimited protobuf messages (a
// GlobalMetadata, then Nodes), gzip-compressed or not. Files of a set are named <prefix>.<rank>.et
// (or .et.gz), as Chakra's converter and ASTRA-sim name them.
#pragma once

#include <string>
#include <vector>

#include "core/chakra/et_trace.hpp"

namespace dtsim {

// Whether this build reads and writes Chakra traces (protobuf and zlib were found at configure time).
bool chakra_supported();

// Reads a trace file (gzip is recognised by its magic bytes). A truncated or corrupt file throws
// InputError naming the file, `rank` and the byte offset of the message that fails; without protobuf,
// InputError saying the build has no Chakra support.
EtTrace read_et(const std::string& path, int rank);
// Its GlobalMetadata alone (no nodes).
EtTrace read_et_metadata(const std::string& path, int rank);

// Writes a trace file whole or not at all (core/base/atomic_file.hpp); gzip-compressed when `gzip`.
void write_et(const std::string& path, const EtTrace& trace, bool gzip = false);

// The file of `rank` in the set `prefix`: <prefix>.<rank>.et, or <prefix>.<rank>.et.gz when only that exists.
std::string et_path(const std::string& prefix, int rank);

// The ranks' files of a set: `where` is a prefix, or a folder holding one set (<name>.<rank>.et).
// Throws InputError when there is none, when a folder holds several sets, or when a rank between 0
// and the highest is missing.
std::vector<std::string> et_files(const std::string& where);

}  // namespace dtsim
