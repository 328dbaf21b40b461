/* Waitscope's manual annotation API for C and C++: mark regions of a program by hand.
 *
 *   WAITSCOPE_REGION_BEGIN("assemble");  ...  WAITSCOPE_REGION_END("assemble");
 *   { WAITSCOPE_SCOPE("solve"); ... }                         (C++: ends with the scope)
 *
 * The macros compile to nothing unless WAITSCOPE_USER is defined, which
 * `waitscope instrument --user` does; so annotated code builds and runs unchanged without
 * Waitscope. Region names must be string literals (or otherwise live for the whole run). */
#ifndef WAITSCOPE_USER_H
#define WAITSCOPE_USER_H

#ifdef __cplusplus
extern "C" {
#endif

/** Enters the region `name` (defined at `file`:`line` on first use). Main thread only; other
 *  threads' calls are ignored. Never fails. */
void waitscope_region_begin(const char* name, const char* file, int line);
/** Leaves the region `name`; regions must nest. */
void waitscope_region_end(const char* name);

#ifdef __cplusplus
}
#endif

#ifdef WAITSCOPE_USER
#define WAITSCOPE_REGION_BEGIN(name) waitscope_region_begin((name), __FILE__, __LINE__)
#define WAITSCOPE_REGION_END(name) waitscope_region_end(name)
#else
#define WAITSCOPE_REGION_BEGIN(name) ((void)0)
#define WAITSCOPE_REGION_END(name) ((void)0)
#endif

#ifdef __cplusplus
#define WAITSCOPE_CONCAT_(a, b) a##b
#define WAITSCOPE_CONCAT(a, b) WAITSCOPE_CONCAT_(a, b)
#ifdef WAITSCOPE_USER
namespace waitscope {
/** Enters a region for the lifetime of the object. */
class ScopedRegion {
public:
    __attribute__((no_instrument_function))
    ScopedRegion(const char* name, const char* file, int line)
        : m_name(name) {
        waitscope_region_begin(name, file, line);
    }
    __attribute__((no_instrument_function)) ~ScopedRegion() { waitscope_region_end(m_name); }
    ScopedRegion(const ScopedRegion&) = delete;
    ScopedRegion& operator=(const ScopedRegion&) = delete;

private:
    const char* m_name;
};
} // namespace waitscope
#define WAITSCOPE_SCOPE(name)                                                                      \
    ::waitscope::ScopedRegion WAITSCOPE_CONCAT(waitscope_scope_, __LINE__)((name), __FILE__,       \
                                                                           __LINE__)
#else
#define WAITSCOPE_SCOPE(name) ((void)0)
#endif
#endif

#endif
