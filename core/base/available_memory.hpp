// Bytes of data this machine can still give a process, for the estimates that refuse an input before it
// allocates (a run, a sweep's points, a Chakra trace): MemAvailable, or what `ulimit -v` leaves for data when
// that is less. Under `ulimit -v` the address space is what runs out, and it runs ahead of resident memory
// (libraries mapped whole, vectors grown by doubling): measured at most 1 GB plus twice the resident bytes
// (docs/PERFORMANCE.md, "Memory of a run"), so (limit - 1 GB) / 2 is left for data.
#pragma once

#include <string>

namespace dtsim {

struct Available {
  double bytes = 0;
  std::string what;  // "this machine has available", or what `ulimit -v` leaves
};
Available available_memory();

}  // namespace dtsim

namespace dtsim {

// Refuses, before it is read, a file whose reader would hold more than the machine has: `bytes_per_byte` bytes for each
// byte of the file, measured for each kind of file at its reader (docs/PERFORMANCE.md, "Memory of reading a profile,
// a failure trace or a data file").
// `what` names the file's kind ("the speed profile"), `of` its contents in the rate ("profile text"). A file that
// cannot be sized is left to the reader. Throws InputError at the file.
void refuse_if_too_big_to_read(const std::string& path, const std::string& what, double bytes_per_byte,
                               const std::string& of);

// The same for a YAML file a loader reads whole (a scenario, a model file, a calibration profile): yaml-cpp's nodes and
// what the loader builds from them take about 73 B a byte of YAML (measured on layer tables of 50,000 and 250,000
// rows, 2 and 10 MB: 357 and 951 MB peak for `dtsim check`).
void refuse_if_too_big_to_parse(const std::string& path, const std::string& what);

}  // namespace dtsim
