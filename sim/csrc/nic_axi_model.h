// C++ side of the nic-sim cxx bridge for `nic_top_axi` (the NIC with its DMA port
// bridged to a 128-bit AXI4 master): one abstract class, one implementation per variant
// (nic_axi_model_impl.h: the Verilated nic_top_axi behind build.rs's input registers,
// instantiated by a generated .cpp in build.rs). Same conventions as nic_model.h: one
// step() per clock cycle, own VerilatedContext each.
#pragma once
#include <cstdint>
#include <memory>
#include "rust/cxx.h"

namespace nicsim {

struct AxiInputs;
struct AxiOutputs;

class AxiNicModel {
public:
    virtual ~AxiNicModel() {}
    // One clock cycle: drive `in`, evaluate with the clock low, copy the outputs to
    // `out` (the values sampled at the coming rising edge), raise the clock, evaluate.
    virtual void step(const AxiInputs& in, AxiOutputs& out) = 0;
    virtual void open_trace(rust::Str path) = 0;
    virtual void close_trace() = 0;
    virtual void flush_trace() = 0;
    virtual bool traced_build() const = 0;
    virtual void set_exact_eval(bool exact) = 0;
    virtual bool fast_clock_build() const = 0;
    virtual bool settled_inputs_build() const = 0;
    virtual uint64_t cycles() const = 0;
    // Always 0: kept for the Rust API from when nic_top and the bridge were two models
    // settled per clock-low phase (the most extra rounds that took).
    virtual uint32_t max_settle_rounds() const = 0;
};

// config: 0 = small, 1 = full (throws if this build has no AXI model of it).
std::unique_ptr<AxiNicModel> new_axi_model(uint32_t config, bool want_trace);
// Which AXI variants this build contains (bit 0: untraced, bit 1: traced) for a config.
uint32_t axi_model_variants(uint32_t config);

}  // namespace nicsim
