// Classifying compiler invocations and adding Waitscope's instrumentation flags.
#include "compiler_command.h"

#include "waitscope/measure/filter.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace waitscope::measure {

namespace {

const char* const kCCompilers[] = {"mpicc", "gcc", "cc", "clang"};
const char* const kCxxCompilers[] = {"mpicxx", "mpic++", "mpiCC", "g++", "c++", "clang++"};
const char* const kFortranCompilers[] = {"mpif90", "mpifort", "mpif77", "gfortran"};

std::string baseName(const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// "gcc-12" and "x86_64-linux-gnu-g++-12" name gcc and g++.
bool namesCompiler(const std::string& name, const char* compiler) {
    std::string c(compiler);
    size_t at = name.rfind(c);
    if (at == std::string::npos)
        return false;
    bool prefixOk = at == 0 || name[at - 1] == '-';
    std::string rest = name.substr(at + c.size());
    bool suffixOk = rest.empty() ||
                    (rest[0] == '-' && rest.find_first_not_of("-.0123456789") == std::string::npos);
    return prefixOk && suffixOk;
}

bool endsWith(const std::string& s, const char* suffix) {
    std::string x(suffix);
    return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

bool isSource(const std::string& a) {
    for (const char* ext : {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".i", ".ii", ".f", ".F",
                            ".f90", ".F90", ".s", ".S"})
        if (endsWith(a, ext))
            return true;
    return false;
}

bool isObject(const std::string& a) {
    return endsWith(a, ".o") || endsWith(a, ".a") || endsWith(a, ".so") ||
           a.find(".so.") != std::string::npos;
}

/// Options whose value is the next argument (so it is not taken for an input).
bool takesValue(const std::string& a) {
    static const char* const kOptions[] = {
        "-o",  "-I",  "-L",  "-D",       "-U",         "-include", "-isystem", "-x",
        "-MF", "-MT", "-MQ", "-Xlinker", "-idirafter", "-iquote",  "-imacros", "-Xpreprocessor",
        "-T"};
    return std::any_of(std::begin(kOptions), std::end(kOptions),
                       [&](const char* o) { return a == o; });
}

Status expandResponseFile(const std::string& path, std::vector<std::string>& out) {
    std::ifstream in(path);
    if (!in)
        return Error("cannot read response file '" + path + "'");
    // Whitespace-separated, with '...' and "..." quoting, as GCC reads them.
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (char c; in.get(c);) {
        if (quote) {
            if (c == quote)
                quote = 0;
            else
                word += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            inWord = true;
        } else if (c == '\\') {
            if (in.get(c))
                word += c;
            inWord = true;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (inWord)
                out.push_back(word);
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        out.push_back(word);
    return Status::success();
}

} // namespace

std::string shellQuote(const std::string& a) {
    if (!a.empty() &&
        a.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%") ==
            std::string::npos)
        return a;
    std::string out = "'";
    for (char c : a)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

Result<CompilerCommand> instrumentCommand(const InstrumentOptions& options,
                                          const std::vector<std::string>& command) {
    CompilerCommand result;
    std::string name = baseName(command.at(0));
    bool known = false;
    for (const char* c : kCCompilers)
        known = known || namesCompiler(name, c);
    for (const char* c : kCxxCompilers)
        if (namesCompiler(name, c))
            known = result.cxx = true;
    for (const char* c : kFortranCompilers)
        known = known || namesCompiler(name, c);
    if (!known)
        return Error("unknown compiler '" + command[0] +
                     "' (supported: mpicc, mpicxx, mpic++, mpiCC, mpif90, mpifort, mpif77, gcc, "
                     "g++, cc, c++, clang, clang++, gfortran)");
    result.clang = name.find("clang") != std::string::npos;

    // Classify with response files expanded; pass the original words on.
    std::vector<std::string> words;
    for (size_t i = 1; i < command.size(); ++i) {
        if (command[i].size() > 1 && command[i][0] == '@') {
            if (Status s = expandResponseFile(command[i].substr(1), words); !s.ok())
                return s.error();
        } else {
            words.push_back(command[i]);
        }
    }
    bool compileOnly = false, sources = false, objects = false;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w == "-c" || w == "-S" || w == "-E" || w == "-M" || w == "-MM")
            compileOnly = true;
        else if (takesValue(w))
            ++i;
        else if (w.rfind('-', 0) != 0 && isSource(w))
            sources = true;
        else if ((w.rfind('-', 0) != 0 && isObject(w)) || w.rfind("-l", 0) == 0)
            objects = true; // an object file or a library: something to link
    }
    if (compileOnly)
        result.kind = sources ? CommandKind::CompileOnly : CommandKind::Other;
    else if (sources)
        result.kind = CommandKind::CompileAndLink;
    else if (objects)
        result.kind = CommandKind::LinkOnly;

    result.arguments = command;
    if (result.kind == CommandKind::Other)
        return result;
    std::vector<std::string> add;
    bool compiles = result.kind != CommandKind::LinkOnly;
    bool links = result.kind != CommandKind::CompileOnly;
    if (compiles) {
        add.push_back("-I" + options.includeDir);
        if (options.user)
            add.emplace_back("-DWAITSCOPE_USER");
        if (options.compiler) {
            add.emplace_back("-finstrument-functions");
            if (result.clang) {
                add.emplace_back("-finstrument-functions-after-inlining");
            } else {
                // System headers' inline functions (the C++ library above all) stay untouched.
                add.push_back("-finstrument-functions-exclude-file-list=/usr/include/,/usr/lib/," +
                              options.includeDir + "/waitscope/");
                if (!options.filter.empty()) {
                    Result<Filter> filter = Filter::load(options.filter);
                    if (!filter.ok())
                        return filter.error();
                    std::string list;
                    for (const std::string& n : filter->literalNameExclusions())
                        list += (list.empty() ? "" : ",") + n;
                    if (!list.empty())
                        add.push_back("-finstrument-functions-exclude-function-list=" + list);
                }
            }
        }
    }
    result.arguments.insert(result.arguments.end(), add.begin(), add.end());
    if (links) {
        // First on the line, so the dynamic linker finds our MPI_* before the MPI library's
        // whatever order the build system lists libraries in.
        const std::string front[] = {"-L" + options.libraryDir, "-Wl,-rpath," + options.libraryDir,
                                     "-Wl,--no-as-needed", "-lwaitscope", "-Wl,--as-needed"};
        result.arguments.insert(result.arguments.begin() + 1, std::begin(front), std::end(front));
    }
    return result;
}

} // namespace waitscope::measure
