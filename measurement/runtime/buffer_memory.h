// The event buffer's memory: mapped on its own and advised to use transparent huge pages, so
// that its first touch costs a fault per 2 MiB instead of one per 4 KiB page.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace waitscope::measure {

/// The smallest block that is mapped on its own (and its alignment): one huge page.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// Maps `bytes` (at least kHugePageBytes) of anonymous memory at a kHugePageBytes boundary and
/// advises the kernel to back it with transparent huge pages (where the system allows them:
/// `/sys/kernel/mm/transparent_hugepage/enabled` "always" or "madvise"; elsewhere the advice
/// changes nothing). Untouched: a page is faulted in once it is written. nullptr when no
/// memory could be mapped.
void* mapHugeBlock(std::size_t bytes) noexcept;
/// Unmaps a block from mapHugeBlock of the same `bytes`.
void unmapHugeBlock(void* block, std::size_t bytes) noexcept;

/// An allocator whose elements start uninitialized: the event buffer's pages are then touched
/// (and zeroed by the kernel) only once records reach them, not all at MPI_Init. Blocks of a
/// huge page or more come from mapHugeBlock: the ring benchmark's 12 MiB buffer, faulted in 4
/// KiB pages, cost each rank 3,072 faults of about 4 µs on a virtual machine, on the
/// program's own calls (issue 21). Smaller ones come from operator new. (In C++20
/// std::allocator has no rebind member: allocator_traits rebinds this template by itself.)
template <class T> struct UninitializedAllocator : std::allocator<T> {
    using std::allocator<T>::allocator;
    template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    T* allocate(std::size_t n) {
        if (n >= kHugePageBytes / sizeof(T)) {
            if (void* block = mapHugeBlock(n * sizeof(T)))
                return static_cast<T*>(block);
            throw std::bad_alloc();
        }
        return std::allocator<T>::allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (n >= kHugePageBytes / sizeof(T))
            unmapHugeBlock(p, n * sizeof(T));
        else
            std::allocator<T>::deallocate(p, n);
    }
};

} // namespace waitscope::measure
