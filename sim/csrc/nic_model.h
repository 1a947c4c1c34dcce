// C++ side of the nic-sim cxx bridge: one abstract model class, one concrete
// implementation per hardware configuration (nic_model_impl.h, instantiated by a
// small generated .cpp per config in build.rs). Each instance owns its own
// VerilatedContext, so several models coexist in one process.
#pragma once
#include <cstdint>
#include <memory>
#include "rust/cxx.h"

namespace nicsim {

struct Inputs;
struct Outputs;

class NicModel {
public:
    virtual ~NicModel() {}
    // One clock cycle: drive `in`, evaluate with the clock low (outputs copied to `out`
    // here: the values the design presents during this cycle, i.e. those sampled at
    // the coming rising edge), then raise the clock and evaluate (the edge).
    virtual void step(const Inputs& in, Outputs& out) = 0;
    // Starts an FST dump (throws if this build was compiled without tracing or the
    // file cannot be opened). Time unit: ps, 6400 ps per cycle (156.25 MHz).
    virtual void open_trace(rust::Str path) = 0;
    virtual void close_trace() = 0;
    virtual void flush_trace() = 0;
    virtual bool traced_build() const = 0;
    // Always evaluate clock-low and clock-high (see nic_model_impl.h); for tests.
    virtual void set_exact_eval(bool exact) = 0;
    // Whether this build can skip the clock-low evaluation of unchanged cycles.
    virtual bool fast_clock_build() const = 0;
    virtual bool settled_inputs_build() const = 0;
    virtual uint64_t cycles() const = 0;
};

// config: 0 = small, 1 = full. `want_trace`: pick the variant compiled with tracing.
std::unique_ptr<NicModel> new_model(uint32_t config, bool want_trace);
// Which variants this build contains (bit 0: untraced, bit 1: traced) for a config.
uint32_t model_variants(uint32_t config);

}  // namespace nicsim
