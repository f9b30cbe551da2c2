// The floor of unpacking a wheel on this machine, for bench_install.py: libzip on N threads (each
// its own zip_t, taking the largest remaining entry), every entry inflated in 64 KiB chunks,
// SHA-256 of every entry's bytes, each written to its path under OUT with open/write/close. No
// RECORD, no safety checks, no relinking, no staging, no rename: what any installer that verifies
// hashes must at least do. Prints one JSON line: {"seconds", "cpu_seconds", "files", "bytes"}.
//
//   bench_unpack_floor WHEEL OUT THREADS
#include <fcntl.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include "hash/sha256.hpp"

namespace fs = std::filesystem;

namespace {

struct Entry {
  zip_uint64_t index;
  std::string name;
  zip_uint64_t size;
};

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_unpack_floor: %s\n", why.c_str());
  std::exit(1);
}

zip_t* open_archive(const char* path) {
  int code = 0;
  zip_t* archive = zip_open(path, ZIP_RDONLY, &code);
  if (archive == nullptr) die(std::string("cannot open ") + path);
  return archive;
}

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) die("usage: bench_unpack_floor WHEEL OUT THREADS");
  const char* wheel = argv[1];
  const fs::path out = argv[2];
  const auto threads = static_cast<unsigned>(std::max(1, std::atoi(argv[3])));
  const auto start = std::chrono::steady_clock::now();

  std::vector<Entry> entries;
  {
    zip_t* archive = open_archive(wheel);
    const auto count = static_cast<zip_uint64_t>(zip_get_num_entries(archive, 0));
    std::set<fs::path> directories;
    for (zip_uint64_t i = 0; i < count; ++i) {
      zip_stat_t st;
      if (zip_stat_index(archive, i, 0, &st) != 0) die("cannot stat an entry");
      std::string name = st.name;
      if (name.empty() || name.back() == '/') continue;
      entries.push_back({i, name, st.size});
      directories.insert((out / name).parent_path());
    }
    zip_discard(archive);
    for (const auto& directory : directories) fs::create_directories(directory);
  }
  std::ranges::stable_sort(entries, [](const Entry& a, const Entry& b) { return a.size > b.size; });

  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> bytes{0};
  const auto work = [&] {
    zip_t* archive = open_archive(wheel);
    std::vector<std::uint8_t> buffer(64 * 1024);
    wheelmod::hash::Sha256 hasher;
    for (std::size_t i; (i = next.fetch_add(1)) < entries.size();) {
      const auto& entry = entries[i];
      zip_file_t* file = zip_fopen_index(archive, entry.index, 0);
      if (file == nullptr) die("cannot open " + entry.name);
      const fs::path path = out / entry.name;
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) die("cannot create " + path.string());
      zip_int64_t got = 0;
      while ((got = zip_fread(file, buffer.data(), buffer.size())) > 0) {
        hasher.update(std::span<const std::uint8_t>(buffer.data(), static_cast<std::size_t>(got)));
        for (zip_int64_t done = 0; done < got;) {
          const auto written =
              ::write(fd, buffer.data() + done, static_cast<std::size_t>(got - done));
          if (written < 0) die("cannot write " + path.string());
          done += written;
        }
        bytes += static_cast<std::uint64_t>(got);
      }
      if (got < 0) die("cannot read " + entry.name);
      (void)hasher.finish();
      zip_fclose(file);
      if (::close(fd) != 0) die("cannot close " + path.string());
    }
    zip_discard(archive);
  };
  {
    std::vector<std::jthread> pool;
    for (unsigned i = 1; i < threads; ++i) pool.emplace_back(work);
    work();
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  std::printf("{\"seconds\": %.4f, \"cpu_seconds\": %.4f, \"files\": %zu, \"bytes\": %llu}\n",
              elapsed.count(), cpu_seconds(), entries.size(),
              static_cast<unsigned long long>(bytes.load()));
  return 0;
}
