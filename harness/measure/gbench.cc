// The C shim over Google Benchmark 1.7.1 declared in gbench.h: the only C++ in lnbench.
#include "gbench.h"

#include <benchmark/benchmark.h>
#include <sstream>
#include <string>
#include <regex.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace
{

benchmark::State &S(ln_gb_state *st) { return *reinterpret_cast<benchmark::State *>(st); }
const benchmark::State &S(const ln_gb_state *st) { return *reinterpret_cast<const benchmark::State *>(st); }
benchmark::internal::Benchmark *B(ln_gb_bench *b) { return reinterpret_cast<benchmark::internal::Benchmark *>(b); }

double min_of(const std::vector<double> &v)
{
    double m = v.empty() ? NAN : v[0];
    for (double x : v) m = x < m ? x : m;
    return m;
}

double max_of(const std::vector<double> &v)
{
    double m = v.empty() ? NAN : v[0];
    for (double x : v) m = x > m ? x : m;
    return m;
}

void copy_string(char *dst, size_t size, const std::string &src) { std::snprintf(dst, size, "%s", src.c_str()); }

// Forwards everything to the display reporter Google Benchmark would have used (so
// --benchmark_format and colours behave as usual) and keeps a copy of every run.
class CollectingReporter : public benchmark::BenchmarkReporter
{
  public:
    explicit CollectingReporter(benchmark::BenchmarkReporter *display) : display_(display) {}

    /* The display's context, with Google Benchmark's "Library was built as DEBUG" line (Debian
     * builds it so) explained: it concerns the library's bookkeeping between timed loops, not
     * the kernels' calls inside them. */
    bool ReportContext(const Context &context) override
    {
        if (!display_) return true;
        std::ostringstream text;
        std::ostream &err = display_->GetErrorStream();
        display_->SetErrorStream(&text);
        bool ok = display_->ReportContext(context);
        display_->SetErrorStream(&err);
        std::string s = text.str();
        const std::string debug = "***WARNING*** Library was built as DEBUG. Timings may be affected.";
        size_t at = s.find(debug);
        if (at != std::string::npos)
            s.replace(at, debug.size(),
                      "note: Debian's libbenchmark is a DEBUG build (its own warning); that slows the library's "
                      "bookkeeping between timed loops, not the kernel calls it times.");
        err << s;
        return ok;
    }

    void ReportRuns(const std::vector<Run> &runs) override
    {
        if (display_) display_->ReportRuns(runs);
        for (const Run &run : runs) results.push_back(convert(run));
    }

    void Finalize() override
    {
        if (display_) display_->Finalize();
    }

    std::vector<ln_gb_result> results;

  private:
    static ln_gb_result convert(const Run &run)
    {
        ln_gb_result r;
        std::memset(&r, 0, sizeof r);
        copy_string(r.name, sizeof r.name, run.run_name.str());
        if (run.run_type == Run::RT_Aggregate) copy_string(r.aggregate, sizeof r.aggregate, run.aggregate_name);
        r.repetition = run.repetition_index;
        r.repetitions = run.repetitions;
        r.iterations = run.iterations;
        r.error = run.error_occurred;
        if (run.run_type == Run::RT_Aggregate && run.aggregate_unit == benchmark::kPercentage) {
            r.real_ns = run.real_accumulated_time; // a ratio, not a time
            r.cpu_ns = run.cpu_accumulated_time;
        } else {
            double to_ns = 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
            r.real_ns = run.GetAdjustedRealTime() * to_ns;
            r.cpu_ns = run.GetAdjustedCPUTime() * to_ns;
        }
        for (const auto &kv : run.counters) {
            if (r.ncounters == LN_GB_MAX_COUNTERS) break;
            copy_string(r.counters[r.ncounters].name, sizeof r.counters[0].name, kv.first);
            r.counters[r.ncounters].value = kv.second.value;
            r.ncounters++;
        }
        return r;
    }

    benchmark::BenchmarkReporter *display_; // null: nothing shown
};

// The reporter of the ln_gb_run in progress, for ln_gb_results_so_far.
CollectingReporter *running = nullptr;
bool display = true;

} // namespace

extern "C" {

void ln_gb_init(int *argc, char **argv) { benchmark::Initialize(argc, argv); }

int ln_gb_unrecognized(int argc, char **argv)
{
    benchmark::ReportUnrecognizedArguments(argc, argv);
    return argc > 1 ? argc - 1 : 0;
}

void ln_gb_add_context(const char *key, const char *value) { benchmark::AddCustomContext(key, value); }

ln_gb_bench *ln_gb_register(const char *name, ln_gb_fn fn, void *ctx)
{
    auto *b = benchmark::RegisterBenchmark(
        name, [fn, ctx](benchmark::State &st) { fn(reinterpret_cast<ln_gb_state *>(&st), ctx); });
    return reinterpret_cast<ln_gb_bench *>(b);
}

void ln_gb_arg(ln_gb_bench *b, int64_t arg) { B(b)->Arg(arg); }
void ln_gb_repetitions(ln_gb_bench *b, int n) { B(b)->Repetitions(n); }
void ln_gb_min_time(ln_gb_bench *b, double seconds) { B(b)->MinTime(seconds); }
void ln_gb_use_real_time(ln_gb_bench *b) { B(b)->UseRealTime(); }
void ln_gb_process_cpu_time(ln_gb_bench *b) { B(b)->MeasureProcessCPUTime(); }
void ln_gb_report_aggregates_only(ln_gb_bench *b, int only) { B(b)->ReportAggregatesOnly(only != 0); }

void ln_gb_min_max_statistics(ln_gb_bench *b)
{
    B(b)->ComputeStatistics("min", min_of)->ComputeStatistics("max", max_of);
}

int ln_gb_keep_running(ln_gb_state *st) { return S(st).KeepRunning(); }
int64_t ln_gb_range(const ln_gb_state *st, int i) { return S(st).range(static_cast<size_t>(i)); }
int64_t ln_gb_iterations(const ln_gb_state *st) { return S(st).iterations(); }
int64_t ln_gb_max_iterations(const ln_gb_state *st) { return S(st).max_iterations; }
void ln_gb_pause_timing(ln_gb_state *st) { S(st).PauseTiming(); }
void ln_gb_resume_timing(ln_gb_state *st) { S(st).ResumeTiming(); }
void ln_gb_skip_with_error(ln_gb_state *st, const char *message) { S(st).SkipWithError(message); }
void ln_gb_set_label(ln_gb_state *st, const char *label) { S(st).SetLabel(label); }

void ln_gb_counter(ln_gb_state *st, const char *name, double value, unsigned flags)
{
    int f = benchmark::Counter::kDefaults;
    if (flags & LN_GB_RATE) f |= benchmark::Counter::kIsRate;
    if (flags & LN_GB_ITERATION_INVARIANT) f |= benchmark::Counter::kIsIterationInvariant;
    if (flags & LN_GB_AVG_ITERATIONS) f |= benchmark::Counter::kAvgIterations;
    S(st).counters[name] =
        benchmark::Counter(value, static_cast<benchmark::Counter::Flags>(f), benchmark::Counter::kIs1000);
}

size_t ln_gb_run(ln_gb_result **out)
{
    CollectingReporter reporter(display ? benchmark::CreateDefaultDisplayReporter() : nullptr);
    running = &reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    running = nullptr;
    benchmark::ClearRegisteredBenchmarks();
    size_t n = reporter.results.size();
    *out = static_cast<ln_gb_result *>(std::malloc((n ? n : 1) * sizeof **out));
    if (!*out) {
        std::fputs("lnbench: out of memory\n", stderr);
        std::exit(1);
    }
    if (n) std::memcpy(*out, reporter.results.data(), n * sizeof **out);
    return n;
}

// As benchmark::RunSpecifiedBenchmarks and BenchmarkFamilies::FindBenchmarks (1.7.1) match a
// benchmark's full name: "all" is ".", a leading '-' negates, an extended regular expression
// searched in the name (Google Benchmark's POSIX back end; its std::regex one is also extended).
int ln_gb_filter_selects(const char *name)
{
    std::string spec = benchmark::GetBenchmarkFilter();
    if (spec.empty() || spec == "all") spec = ".";
    bool negative = spec[0] == '-';
    if (negative) spec.erase(0, 1);
    regex_t re;
    if (regcomp(&re, spec.c_str(), REG_EXTENDED | REG_NOSUB) != 0) return -1;
    bool found = regexec(&re, name, 0, nullptr, 0) == 0;
    regfree(&re);
    return found != negative;
}

void ln_gb_set_display(int show) { display = show != 0; }

size_t ln_gb_results_so_far(const ln_gb_result **out)
{
    *out = running ? running->results.data() : nullptr;
    return running ? running->results.size() : 0;
}

const ln_gb_result *ln_gb_find(const ln_gb_result *r, size_t n, const char *name, const char *aggregate)
{
    for (size_t i = 0; i < n; i++)
        if (!r[i].error && !std::strcmp(r[i].name, name) && !std::strcmp(r[i].aggregate, aggregate)) return &r[i];
    return nullptr;
}

double ln_gb_counter_value(const ln_gb_result *run, const char *counter)
{
    for (int c = 0; run && c < run->ncounters; c++)
        if (!std::strcmp(run->counters[c].name, counter)) return run->counters[c].value;
    return NAN;
}

double ln_gb_lookup(const ln_gb_result *r, size_t n, const char *name, const char *aggregate, const char *counter)
{
    return ln_gb_counter_value(ln_gb_find(r, n, name, aggregate), counter);
}

} // extern "C"
