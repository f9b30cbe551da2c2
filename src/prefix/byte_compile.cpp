#include "prefix/byte_compile.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/subprocess.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;

std::string source_of_pyc(const std::string& pyc) {
  const fs::path path(pyc);
  if (path.parent_path().filename() != "__pycache__" || path.extension() != ".pyc") return {};
  // PEP 3147 / PEP 488: __pycache__/<module>.<tag>[.opt-N].pyc
  const auto name = path.filename().string();
  const auto dot = name.find('.');
  if (dot == std::string::npos || dot == 0) return {};
  return (path.parent_path().parent_path() / (name.substr(0, dot) + ".py")).generic_string();
}

namespace {

// One worker: compiles each NUL-terminated path read from stdin as it comes (compileall's own
// `-i LIST` reads the whole list before compiling the first file). compile_file(ddir=) exists
// in every Python 3 (`-s`/`-p` only from 3.9); quiet=1 prints only the files that fail.
// It stops as soon as wheelmod is gone (reparented: another parent pid): a killed install's
// worker would otherwise go on compiling the paths it had read into the staging directory the
// next run removes, and its __pycache__ directories would bring that directory back.
constexpr std::string_view k_worker = R"(import compileall, os, sys
site, final = sys.argv[1], sys.argv[2]
parent = os.getppid()
ok, pending = True, b""
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    *paths, pending = (pending + chunk).split(b"\0")
    for raw in paths:
        if os.getppid() != parent:
            sys.exit(1)
        path = os.fsdecode(raw)
        folder = os.path.relpath(os.path.dirname(path), site)
        ddir = final if folder == os.curdir else os.path.join(final, folder)
        ok = bool(compileall.compile_file(path, ddir=ddir, quiet=1)) and ok
sys.exit(0 if ok else 1)
)";

bool is_under(const fs::path& file, const fs::path& directory) {
  const auto& text = file.native();
  const auto& base = directory.native();
  return text.size() > base.size() && text.compare(0, base.size(), base) == 0 &&
         text[base.size()] == '/';
}

}  // namespace

struct ByteCompiler::State {
  fs::path python;
  fs::path staging_site;
  fs::path final_site;
  std::string skipped;
  std::vector<std::unique_ptr<PipedProgram>> workers;
  std::vector<std::uint64_t> assigned;  // bytes handed to each worker

  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::pair<std::string, std::uint64_t>> queue;  // path, size
  std::set<std::string> seen;
  std::vector<std::string> again;  // handed over twice: compiled once more at the end
  bool closing = false;
  std::jthread dispatcher;

  // Hands queued paths to the worker with the fewest bytes so far (writes may block on a busy
  // worker; add() never does).
  void dispatch() {
    for (;;) {
      std::unique_lock lock(mutex);
      wake.wait(lock, [&] { return closing || !queue.empty(); });
      if (queue.empty()) return;
      auto [path, size] = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      const auto lightest =
          static_cast<std::size_t>(std::ranges::min_element(assigned) - assigned.begin());
      assigned[lightest] += size + 1;
      path.push_back('\0');
      workers[lightest]->write(path);  // a worker that died is reported by finish()
    }
  }
};

ByteCompiler::ByteCompiler(const fs::path& python, const std::string& python_version,
                           const fs::path& staging_site, const fs::path& final_site,
                           unsigned processes)
    : m_state(std::make_unique<State>()) {
  auto& state = *m_state;
  state.python = python;
  state.staging_site = staging_site.lexically_normal();
  state.final_site = final_site;
  const auto version =
      run_program({python.string(), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"});
  if (!version.started || version.exit_code != 0) {
    state.skipped =
        python.string() + " cannot be run" + (version.output.empty() ? "" : ": " + version.output);
    return;
  }
  std::string found = version.output;
  while (!found.empty() && (found.back() == '\n' || found.back() == '\r')) found.pop_back();
  if (found != python_version) {
    state.skipped = python.string() + " is Python " + found + ", the installation is for " +
                    python_version + " (its .pyc files would never be used)";
    return;
  }
  // One process per usable core: `compileall -j N` spreads files over a process pool that,
  // measured on 2 cores, was no faster than one process; separate processes are.
  for (unsigned i = 0; i < std::max(1U, processes); ++i) {
    auto worker = std::make_unique<PipedProgram>(
        std::vector<std::string>{python.string(), "-c", std::string(k_worker),
                                 state.staging_site.string(), final_site.string()});
    if (!worker->started()) {
      state.skipped = worker->error();
      state.workers.clear();
      return;
    }
    state.workers.push_back(std::move(worker));
  }
  state.assigned.assign(state.workers.size(), 0);
  state.dispatcher = std::jthread([&state] { state.dispatch(); });
}

ByteCompiler::~ByteCompiler() {
  auto& state = *m_state;
  if (state.dispatcher.joinable()) {
    {
      const std::lock_guard lock(state.mutex);
      state.closing = true;
      state.queue.clear();
    }
    state.wake.notify_all();
    for (auto& worker : state.workers) worker->kill();  // a write blocked in dispatch() fails
    state.dispatcher.join();
  }
}

bool ByteCompiler::running() const { return !m_state->workers.empty(); }

const std::string& ByteCompiler::skipped() const { return m_state->skipped; }

bool ByteCompiler::wants(const fs::path& file) const {
  return running() && file.extension() == ".py" && is_under(file, m_state->staging_site);
}

void ByteCompiler::add(const fs::path& file, std::uint64_t size) {
  auto& state = *m_state;
  if (!running()) return;
  {
    const std::lock_guard lock(state.mutex);
    if (!state.seen.insert(file.string()).second) {
      // The first copy may be compiling now, in another worker: its .pyc could land last.
      state.again.push_back(file.string());
      return;
    }
    state.queue.emplace_back(file.string(), size);
  }
  state.wake.notify_one();
}

ByteCompileResult ByteCompiler::finish() {
  auto& state = *m_state;
  ByteCompileResult result;
  if (!running()) {
    result.skipped = state.skipped;
    return result;
  }
  {
    const std::lock_guard lock(state.mutex);
    state.closing = true;
  }
  state.wake.notify_all();
  state.dispatcher.join();
  std::vector<ProgramResult> outcomes;
  for (auto& worker : state.workers) outcomes.push_back(worker->finish());
  state.workers.clear();
  if (!state.again.empty()) {
    PipedProgram last({state.python.string(), "-c", std::string(k_worker),
                       state.staging_site.string(), state.final_site.string()});
    for (auto path : state.again) last.write(path.append(1, '\0'));
    outcomes.push_back(last.finish());
  }
  for (const auto& compiled : outcomes) {
    if (!compiled.started) {
      result.skipped = compiled.output;
      return result;
    }
    if (compiled.exit_code != 0) {
      result.warnings += compiled.output.empty()
                             ? "a compiling process of " + state.python.string() + " exited " +
                                   std::to_string(compiled.exit_code) + "\n"
                             : compiled.output;
    }
  }
  result.ran = true;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(state.staging_site, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->path().extension() == ".pyc" && it->path().parent_path().filename() == "__pycache__")
      result.pyc_files.push_back(
          it->path().lexically_relative(state.staging_site).generic_string());
  }
  std::ranges::sort(result.pyc_files);
  return result;
}

}  // namespace wheelmod::prefix
