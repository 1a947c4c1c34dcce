// The per-configuration model wrapper. Included by a generated translation unit that
// first defines:
//   NIC_VCLASS   the Verilated class (e.g. Vnic_small), whose header is already included
//   NIC_WRAPPER  the name of the wrapper class to define
//   NIC_FACTORY  the name of the factory function to define
//   NIC_TRACED   1 if the Verilated model was built with --trace-fst
//   NIC_FAST_CLOCK  1 if build.rs checked that nothing acts at the falling edge of the
//                clock, so that a cycle may be one evaluation (see `step`)
//   NIC_CLOCK_MEMORY  the root's member that remembers the clock's last value
//   NIC_SETTLED_INPUTS  1 if build.rs found the generated `_eval` in the shape `edge_only`
//                repeats; then NIC_PHASE_ACT and NIC_PHASE_NBA name its phase functions
//
// The Verilated top is build.rs's `nic_top_sim`: nic_top with, beside each output
// `<port>`, a register `edge_<port>` that takes it at the rising edge (build.rs, "The
// wrapper: one evaluation per cycle"). The inputs go straight in.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include "verilated.h"
#include "nic-sim/csrc/clock_cycle.h"
#if NIC_TRACED
#include "verilated_fst_c.h"
#endif
#include "nic-sim/csrc/nic_model.h"
#include "nic-sim/src/model.rs.h"

namespace nicsim {

// 156.25 MHz: 6400 ps per cycle; the FST time unit is 1 ps (verilator --timescale 1ps/1ps).
static const uint64_t NIC_HALF_PERIOD_PS = 3200;

class NIC_WRAPPER final : public NicModel {
public:
    NIC_WRAPPER() : ctx_(new VerilatedContext), top_(nullptr), cycles_(0) {
#if NIC_TRACED
        ctx_->traceEverOn(true);
#endif
        ctx_->fatalOnError(false);
        top_ = new NIC_VCLASS(ctx_.get(), "nic");
        // Clock high (the first eval() sees no edge): steps start with the clock high.
        top_->clock = 1;
#if NIC_GATED
        set_gate_clocks(top_, 1);
#endif
        top_->reset = 1;
        top_->eval();
    }
    ~NIC_WRAPPER() override {
        close_trace();
        top_->final();
        delete top_;
    }

    // One cycle: the inputs written to the ports, then `clock_cycle` (clock_cycle.h): one
    // evaluation, the outputs from the wrapper's edge registers; or, exact (asked for or
    // a waveform open), clock low and clock high evaluated apart, the outputs from the
    // ports. sim/tests/model_equiv.rs runs both on the same random stimulus and compares
    // every output.
    void step(const Inputs& in, Outputs& out) override {
        NIC_VCLASS* t = top_;
        bool changed = false;
#define NIC_IN(f) changed |= (t->f != (in.f)); t->f = (in.f);
        NIC_IN(reset)
        NIC_IN(s_axil_awaddr)
        NIC_IN(s_axil_awvalid)
        NIC_IN(s_axil_wdata)
        NIC_IN(s_axil_wstrb)
        NIC_IN(s_axil_wvalid)
        NIC_IN(s_axil_bready)
        NIC_IN(s_axil_araddr)
        NIC_IN(s_axil_arvalid)
        NIC_IN(s_axil_rready)
        NIC_IN(dma_rd_req_ready)
        NIC_IN(dma_rd_rsp_valid)
        // 128-bit port: VlWide<4>, word 0 = bits 31:0
#define NIC_IN_WORD(f, i, v) changed |= (t->f[i] != (uint32_t)(v)); t->f[i] = (uint32_t)(v);
        NIC_IN_WORD(dma_rd_rsp_data, 0, in.dma_rd_rsp_data_lo)
        NIC_IN_WORD(dma_rd_rsp_data, 1, in.dma_rd_rsp_data_lo >> 32)
        NIC_IN_WORD(dma_rd_rsp_data, 2, in.dma_rd_rsp_data_hi)
        NIC_IN_WORD(dma_rd_rsp_data, 3, in.dma_rd_rsp_data_hi >> 32)
#undef NIC_IN_WORD
        NIC_IN(dma_rd_rsp_last)
        NIC_IN(dma_rd_rsp_error)
        NIC_IN(dma_rd_rsp_tag)
        NIC_IN(dma_wr_ready)
        NIC_IN(dma_wr_rsp_valid)
        NIC_IN(dma_wr_rsp_error)
        NIC_IN(dma_wr_rsp_tag)
        NIC_IN(tx_axis_tready)
        NIC_IN(rx_axis_tdata)
        NIC_IN(rx_axis_tkeep)
        NIC_IN(rx_axis_tlast)
        NIC_IN(rx_axis_tuser)
        NIC_IN(rx_axis_tvalid)
#undef NIC_IN

        bool exact = exact_;
#if NIC_TRACED
        exact = exact || tfp_;
#endif
        const char* unannounced = clock_cycle(
            t, exact, changed, gate_,
            [&](bool edge) {
                if (edge) {
                    read_outputs<true>(out);
                } else {
                    read_outputs<false>(out);
                }
            },
            [&](int half) {
#if NIC_TRACED
                if (tfp_) tfp_->dump(cycles_ * 2 * NIC_HALF_PERIOD_PS + half * NIC_HALF_PERIOD_PS);
#else
                (void)half;
#endif
            });
        if (unannounced) gate_violation(cycles_, unannounced);
        cycles_++;
    }

    // The outputs from the ports (EDGE false: read before the edge) or from the
    // wrapper's `edge_` registers (EDGE true: read after it).
    template <bool EDGE>
    void read_outputs(Outputs& out) const {
        const NIC_VCLASS* t = top_;
#define NIC_OUT(f) (EDGE ? t->edge_##f : t->f)
        out.s_axil_awready = NIC_OUT(s_axil_awready) & 1;
        out.s_axil_wready = NIC_OUT(s_axil_wready) & 1;
        out.s_axil_bresp = NIC_OUT(s_axil_bresp);
        out.s_axil_bvalid = NIC_OUT(s_axil_bvalid) & 1;
        out.s_axil_arready = NIC_OUT(s_axil_arready) & 1;
        out.s_axil_rdata = NIC_OUT(s_axil_rdata);
        out.s_axil_rresp = NIC_OUT(s_axil_rresp);
        out.s_axil_rvalid = NIC_OUT(s_axil_rvalid) & 1;
        out.dma_rd_req_valid = NIC_OUT(dma_rd_req_valid) & 1;
        out.dma_rd_req_addr = NIC_OUT(dma_rd_req_addr);
        out.dma_rd_req_len = NIC_OUT(dma_rd_req_len);
        out.dma_rd_req_tag = NIC_OUT(dma_rd_req_tag);
        out.dma_rd_rsp_ready = NIC_OUT(dma_rd_rsp_ready) & 1;
        out.dma_wr_valid = NIC_OUT(dma_wr_valid) & 1;
        out.dma_wr_addr = NIC_OUT(dma_wr_addr);
        out.dma_wr_data_lo = (uint64_t)NIC_OUT(dma_wr_data)[0] | ((uint64_t)NIC_OUT(dma_wr_data)[1] << 32);
        out.dma_wr_data_hi = (uint64_t)NIC_OUT(dma_wr_data)[2] | ((uint64_t)NIC_OUT(dma_wr_data)[3] << 32);
        out.dma_wr_strb = NIC_OUT(dma_wr_strb);
        out.dma_wr_last = NIC_OUT(dma_wr_last) & 1;
        out.dma_wr_tag = NIC_OUT(dma_wr_tag);
        out.tx_axis_tdata = NIC_OUT(tx_axis_tdata);
        out.tx_axis_tkeep = NIC_OUT(tx_axis_tkeep);
        out.tx_axis_tlast = NIC_OUT(tx_axis_tlast) & 1;
        out.tx_axis_tuser = NIC_OUT(tx_axis_tuser) & 1;
        out.tx_axis_tvalid = NIC_OUT(tx_axis_tvalid) & 1;
        out.rx_axis_tready = NIC_OUT(rx_axis_tready) & 1;
        out.irq = NIC_OUT(irq);
#undef NIC_OUT
    }

    void set_exact_eval(bool exact) override { exact_ = exact; }
    bool fast_clock_build() const override { return NIC_FAST_CLOCK != 0; }
    bool settled_inputs_build() const override { return NIC_SETTLED_INPUTS != 0; }

    void open_trace(rust::Str path) override {
#if NIC_TRACED
        close_trace();
        std::string p(path.data(), path.size());
        tfp_.reset(new VerilatedFstC);
        top_->trace(tfp_.get(), 99);
        tfp_->open(p.c_str());
        if (!tfp_->isOpen()) {
            tfp_.reset();
            throw std::runtime_error("cannot open FST file " + p);
        }
        // The next step() dumps the state from its clock-low time on.
#else
        (void)path;
        throw std::runtime_error("this model was built without waveform tracing");
#endif
    }
    void close_trace() override {
#if NIC_TRACED
        if (tfp_) {
            tfp_->close();
            tfp_.reset();
        }
#endif
    }
    void flush_trace() override {
#if NIC_TRACED
        if (tfp_) tfp_->flush();
#endif
    }
    bool traced_build() const override { return NIC_TRACED != 0; }
    uint64_t cycles() const override { return cycles_; }

private:
    std::unique_ptr<VerilatedContext> ctx_;
    NIC_VCLASS* top_;
#if NIC_TRACED
    std::unique_ptr<VerilatedFstC> tfp_;
#endif
    uint64_t cycles_;
    bool exact_ = false;
    GateMode gate_ = gate_mode_from_env();
};

std::unique_ptr<NicModel> NIC_FACTORY() { return std::unique_ptr<NicModel>(new NIC_WRAPPER()); }

}  // namespace nicsim
