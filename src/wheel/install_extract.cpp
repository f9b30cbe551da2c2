#include "install_extract.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>
#include <numeric>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "core/unique_fd.hpp"
#include "install_layout.hpp"
#include "install_scripts.hpp"
#include "install_zip.hpp"
#include "pep/record.hpp"

namespace wheelmod::wheel {

namespace {

// Output and input blocks: large enough that system calls cost nothing next to inflating and
// hashing, small enough that two threads stay far under the 64 MiB RSS target.
constexpr std::size_t k_chunk = 256 * 1024;
constexpr std::size_t k_input_chunk = 1024 * 1024;
constexpr mode_t k_file_mode = 0644;
constexpr mode_t k_executable_mode = 0755;

std::string record_form(const hash::Sha256Digest& digest) {
  return pep::RecordHash{"sha256", {digest.begin(), digest.end()}}.str();
}

[[noreturn]] void throw_io(const std::filesystem::path& path, std::string_view what) {
  throw IoError(path.string(), std::string(what) + ": " + std::strerror(errno));
}

void write_all(int fd, std::span<const std::uint8_t> data, const std::filesystem::path& path) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw_io(path, "cannot write");
    }
    data = data.subspan(static_cast<std::size_t>(written));
  }
}

// A new file at `path`. A file already there may be mapped by a running
// process: it is unlinked rather than truncated (pip does the same), and a
// link there is never followed.
class OutputFile {
 public:
  explicit OutputFile(const std::filesystem::path& path) : m_path(path) {
    constexpr int k_flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
    // Nearly always a new file in a new tree: unlinked only when one is there.
    m_fd = ::open(path.c_str(), k_flags, k_file_mode);
    if (m_fd < 0 && errno == EEXIST) {
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw_io(path, "cannot replace");
      m_fd = ::open(path.c_str(), k_flags, k_file_mode);
    }
    if (m_fd < 0) throw_io(path, "cannot create");
  }
  ~OutputFile() {
    if (m_fd >= 0) ::close(m_fd);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  [[nodiscard]] int fd() const { return m_fd; }
  /// close(2) can report a failed delayed write (NFS, quota): checked.
  void close() {
    if (::close(std::exchange(m_fd, -1)) != 0) throw_io(m_path, "cannot write");
  }

 private:
  const std::filesystem::path& m_path;
  int m_fd = -1;
};

// Explicit modes, whatever the umask: a prefix is shared by its users.
void set_mode(int fd, FileRole role, const std::filesystem::path& path) {
  const mode_t mode = role == FileRole::plain ? k_file_mode : k_executable_mode;
  if (::fchmod(fd, mode) != 0) throw_io(path, "cannot set the mode of");
}

// State the threads share: the next job, the first failure, the progress.
class Shared {
 public:
  Shared(std::span<const ExtractJob> jobs, const ExtractSettings& settings, Reporter& reporter)
      : m_jobs(jobs),
        m_settings(settings),
        m_reporter(reporter),
        m_order(jobs.size()),
        m_taken(jobs.size(), false) {
    // Largest first: one huge member (a 600 MB libtorch .so) cannot be
    // split, so it starts at once while the other threads drain the rest.
    std::iota(m_order.begin(), m_order.end(), std::size_t{0});
    std::ranges::stable_sort(
        m_order, [&](std::size_t a, std::size_t b) { return jobs[a].size > jobs[b].size; });
    // Files another stage waits for (sources to byte-compile) come right after the largest,
    // so that stage runs beside the long inflations instead of after them.
    if (const auto& taken = settings.written_files; taken.wants && taken.take) {
      for (std::size_t i = 0; i < jobs.size(); ++i) m_taken[i] = taken.wants(jobs[i].destination);
      if (m_order.size() > 1)
        std::stable_partition(m_order.begin() + 1, m_order.end(),
                              [&](std::size_t i) { return m_taken[i]; });
    }
  }

  /// The next job's position in `jobs`, or nothing when all are taken or
  /// a thread failed.
  std::optional<std::size_t> next() {
    if (m_failed.load()) return std::nullopt;
    const auto position = m_next.fetch_add(1);
    if (position >= m_order.size()) return std::nullopt;
    return m_order[position];
  }
  [[nodiscard]] bool failed() const { return m_failed.load(); }
  void fail(std::exception_ptr error) {
    const std::lock_guard lock(m_mutex);
    if (!m_error) m_error = std::move(error);
    m_failed.store(true);
  }
  void rethrow() const {
    if (m_error) std::rethrow_exception(m_error);
  }
  void add_progress(std::uint64_t bytes) {
    const auto done = m_done.fetch_add(bytes) + bytes;
    // Under the lock so the reporter sees absolute values only growing.
    const std::lock_guard lock(m_mutex);
    if (done > m_reported) {
      m_reported = done;
      m_reporter.on_progress(m_settings.task, done);
    }
  }
  [[nodiscard]] const ExtractJob& job(std::size_t i) const { return m_jobs[i]; }
  [[nodiscard]] const ExtractSettings& settings() const { return m_settings; }
  /// Hands a complete file to the stage that wants it.
  void written(std::size_t i, std::uint64_t size) const {
    if (m_taken[i]) m_settings.written_files.take(m_jobs[i].destination, size);
  }

 private:
  std::span<const ExtractJob> m_jobs;
  const ExtractSettings& m_settings;
  Reporter& m_reporter;
  std::vector<std::size_t> m_order;
  std::vector<bool> m_taken;  // by job: handed to written_files.take once written
  std::atomic<std::size_t> m_next{0};
  std::atomic<bool> m_failed{false};
  std::atomic<std::uint64_t> m_done{0};
  std::mutex m_mutex;
  std::exception_ptr m_error;
  std::uint64_t m_reported = 0;
};

// One thread's tools, reused from member to member.
class Worker {
 public:
  Worker(const std::filesystem::path& wheel, Shared& shared) : m_wheel(wheel), m_shared(shared) {}

  void run(std::vector<ExtractedFile>& results) {
    try {
      m_fd = UniqueFd(::open(m_wheel.c_str(), O_RDONLY | O_CLOEXEC));
      if (!m_fd) throw_io(m_wheel, "cannot open");
      while (const auto i = m_shared.next()) {
        results[*i] = extract(m_shared.job(*i));
        if (!m_shared.failed()) m_shared.written(*i, results[*i].size);
      }
    } catch (...) {
      m_shared.fail(std::current_exception());
    }
  }

 private:
  const std::filesystem::path& m_wheel;
  Shared& m_shared;
  UniqueFd m_fd;  // the wheel, for RawEntryReader
  std::optional<ZipArchive> m_archive;
  std::vector<std::uint8_t> m_buffer = std::vector<std::uint8_t>(k_chunk);
  std::vector<std::uint8_t> m_input = std::vector<std::uint8_t>(k_input_chunk);
  std::vector<std::uint8_t> m_rewritten;
  hash::Sha256 m_member_hash;
  hash::Sha256 m_written_hash;

  // libzip, for the entries RawEntryReader does not read (other methods, or no layout).
  const ZipArchive& archive() {
    if (!m_archive) m_archive.emplace(m_wheel, ZipCheck::central_directory);
    return *m_archive;
  }

  ExtractedFile extract(const ExtractJob& job) {
    const auto& path = job.destination;
    OutputFile file(path);
    std::optional<ZipMemberReader> libzip;
    std::optional<RawEntryReader> raw;
    if (job.data)
      raw.emplace(m_fd.get(), *job.data, m_wheel.string(), printable(job.member), m_input);
    else
      libzip.emplace(archive().open(job.index, job.member));
    const auto read = [&](std::span<std::uint8_t> into) {
      return raw ? raw->read(into) : libzip->read(into);
    };
    ShebangRewriter rewriter(m_shared.settings().script_interpreter);
    const bool script = job.role == FileRole::script;
    std::uint64_t size = 0;     // out of the archive
    std::uint64_t written = 0;  // into a script, after the rewrite
    while (const std::size_t got = read(m_buffer)) {
      if (m_shared.failed()) return {};
      size += got;
      if (size > job.size) {
        throw IntegrityError(m_wheel.string(), "entry '" + printable(job.member) +
                                                   "' inflates to more than the " +
                                                   std::to_string(job.size) +
                                                   " bytes its central directory entry gives");
      }
      const std::span<const std::uint8_t> chunk(m_buffer.data(), got);
      m_member_hash.update(chunk);
      if (script) {
        m_rewritten.clear();
        rewriter.feed(chunk, m_rewritten);
        m_written_hash.update(m_rewritten);
        write_all(file.fd(), m_rewritten, path);
        written += m_rewritten.size();
      } else {
        write_all(file.fd(), chunk, path);
      }
      m_shared.add_progress(got);
    }
    if (size != job.size) {
      throw IntegrityError(m_wheel.string(),
                           "entry '" + printable(job.member) + "' has " + std::to_string(size) +
                               " bytes, its central directory entry " + std::to_string(job.size));
    }
    const auto digest = m_member_hash.finish();
    if (job.expected_sha256 && digest != *job.expected_sha256) {
      IntegrityError error(m_wheel.string(),
                           "entry '" + printable(job.member) + "': hash differs from RECORD",
                           "the wheel is corrupt or was altered after it was built; download "
                           "it again");
      error.with_detail("RECORD:   " + record_form(*job.expected_sha256));
      error.with_detail("computed: " + record_form(digest));
      throw error;
    }
    ExtractedFile out{digest, size};
    if (script) {
      m_rewritten.clear();
      rewriter.finish(m_rewritten);
      m_written_hash.update(m_rewritten);
      write_all(file.fd(), m_rewritten, path);
      written += m_rewritten.size();
      out.sha256 = m_written_hash.finish();
      out.size = written;
    }
    set_mode(file.fd(), job.role, path);
    file.close();
    return out;
  }
};

}  // namespace

std::vector<ExtractedFile> extract_members(const std::filesystem::path& wheel,
                                           std::span<const ExtractJob> jobs,
                                           const ExtractSettings& settings, Reporter& reporter) {
  std::vector<ExtractedFile> results(jobs.size());
  Shared shared(jobs, settings, reporter);
  const auto threads =
      std::clamp<std::size_t>(settings.threads, 1, std::max<std::size_t>(jobs.size(), 1));
  run_in_parallel(threads, [&](std::size_t) { Worker(wheel, shared).run(results); });
  shared.rethrow();
  return results;
}

ExtractedFile write_generated(const std::filesystem::path& path, std::string_view content,
                              FileRole role) {
  OutputFile file(path);
  const std::span bytes(reinterpret_cast<const std::uint8_t*>(content.data()), content.size());
  write_all(file.fd(), bytes, path);
  set_mode(file.fd(), role, path);
  file.close();
  hash::Sha256 hasher;
  hasher.update(content);
  return {hasher.finish(), content.size()};
}

}  // namespace wheelmod::wheel
