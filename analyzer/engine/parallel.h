#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace graphsafe {

// Runs body(i) for i in [0, count) on `jobs` threads (0 = one per core) pulling indexes from a
// shared counter: no lock on the hot path, and results written by index stay in a fixed order.
// An exception thrown by body (std::bad_alloc) stops the others from taking more work and is
// rethrown to the caller once every thread has joined, instead of ending the process from a
// worker thread.
template <typename Body>
void parallelFor(std::size_t count, unsigned jobs, Body&& body) {
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  auto workers = static_cast<std::size_t>(std::min<std::size_t>(jobs, count));
  if (workers <= 1) {
    for (std::size_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto work = [&] {
    try {
      for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) body(i);
    } catch (...) {
      next.store(count);
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> threads;
    threads.reserve(workers - 1);
    for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
    work();
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace graphsafe
