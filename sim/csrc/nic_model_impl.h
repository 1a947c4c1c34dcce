// The per-configuration model wrapper. Included by a generated translation unit that
// first defines:
//   NIC_VCLASS   the Verilated class (e.g. Vnic_small), whose header is already included
//   NIC_WRAPPER  the name of the wrapper class to define
//   NIC_FACTORY  the name of the factory function to define
//   NIC_TRACED   1 if the Verilated model was built with --trace-fst
//   NIC_ROOT     the root class (e.g. Vnic_small___024root), whose header is included
//   NIC_FAST_CLOCK  1 if build.rs checked that the falling edge of the clock does
//                nothing but load the wrapper's input registers (see `step`)
//
// The Verilated top is build.rs's `nic_top_sim`: nic_top behind registers that take
// every input except `clock` at the FALLING edge of `clock` (build.rs says why: Verilator
// 5.006 does not propagate top-level input changes through rust-hdl's Verilog reliably,
// register outputs it does). Same ports as nic_top.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include "verilated.h"
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
        // Clock high (the first eval() sees no edge): the first step's clock-low
        // evaluation is then a falling edge, which loads the input registers.
        top_->clock = 1;
        top_->reset = 1;
        top_->eval();
    }
    ~NIC_WRAPPER() override {
        close_trace();
        top_->final();
        delete top_;
    }

    // One cycle. The clock is high between steps. Inputs are written to the top's
    // ports, then the clock falls and eval() runs: the wrapper's registers load the
    // inputs and everything downstream of them settles (as for any flip-flop); the
    // outputs read then are this cycle's, combinational paths from the inputs included.
    // Then the clock rises and eval() runs the edge.
    //
    // Speed note. When the inputs equal those of the previous cycle, the registers
    // already hold them and the falling edge would change nothing, so with
    // NIC_FAST_CLOCK its evaluation is skipped: the clock goes to 0 together with
    // Verilator's edge-detector memory of it (`__Vtrigrprev__TOP__clock`), which is what
    // an eval() at a falling edge that changes nothing leaves behind (build.rs checks
    // that nothing but the input registers acts at the falling edge and that nothing
    // reads the clock but the edge triggers). Idle cycles then cost one eval() instead
    // of two. Invariant: after each step the input registers hold the top's input
    // ports (an evaluated fall loaded them, a skipped one found them equal), so
    // comparing the new inputs with the ports is comparing them with the registers.
    // `set_exact_eval(true)` turns the skip off; a test runs both ways on the same
    // random stimulus and compares every output.
    void step(const Inputs& in, Outputs& out) override {
        NIC_VCLASS* t = top_;
        bool changed = exact_;
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

        t->clock = 0;
#if NIC_FAST_CLOCK
        if (changed || !regs_loaded_) {
            t->eval();
            regs_loaded_ = true;
        } else {
            t->rootp->__Vtrigrprev__TOP__clock = 0;
        }
#else
        (void)changed;
        t->eval();
#endif
#if NIC_TRACED
        if (tfp_) tfp_->dump(cycles_ * 2 * NIC_HALF_PERIOD_PS);
#endif
        out.s_axil_awready = t->s_axil_awready & 1;
        out.s_axil_wready = t->s_axil_wready & 1;
        out.s_axil_bresp = t->s_axil_bresp;
        out.s_axil_bvalid = t->s_axil_bvalid & 1;
        out.s_axil_arready = t->s_axil_arready & 1;
        out.s_axil_rdata = t->s_axil_rdata;
        out.s_axil_rresp = t->s_axil_rresp;
        out.s_axil_rvalid = t->s_axil_rvalid & 1;
        out.dma_rd_req_valid = t->dma_rd_req_valid & 1;
        out.dma_rd_req_addr = t->dma_rd_req_addr;
        out.dma_rd_req_len = t->dma_rd_req_len;
        out.dma_rd_req_tag = t->dma_rd_req_tag;
        out.dma_rd_rsp_ready = t->dma_rd_rsp_ready & 1;
        out.dma_wr_valid = t->dma_wr_valid & 1;
        out.dma_wr_addr = t->dma_wr_addr;
        out.dma_wr_data_lo = (uint64_t)t->dma_wr_data[0] | ((uint64_t)t->dma_wr_data[1] << 32);
        out.dma_wr_data_hi = (uint64_t)t->dma_wr_data[2] | ((uint64_t)t->dma_wr_data[3] << 32);
        out.dma_wr_strb = t->dma_wr_strb;
        out.dma_wr_last = t->dma_wr_last & 1;
        out.dma_wr_tag = t->dma_wr_tag;
        out.tx_axis_tdata = t->tx_axis_tdata;
        out.tx_axis_tkeep = t->tx_axis_tkeep;
        out.tx_axis_tlast = t->tx_axis_tlast & 1;
        out.tx_axis_tuser = t->tx_axis_tuser & 1;
        out.tx_axis_tvalid = t->tx_axis_tvalid & 1;
        out.rx_axis_tready = t->rx_axis_tready & 1;
        out.irq = t->irq;

        t->clock = 1;
        t->eval();
#if NIC_TRACED
        if (tfp_) tfp_->dump(cycles_ * 2 * NIC_HALF_PERIOD_PS + NIC_HALF_PERIOD_PS);
#endif
        cycles_++;
    }

    void set_exact_eval(bool exact) override { exact_ = exact; }
    bool fast_clock_build() const override { return NIC_FAST_CLOCK != 0; }

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
    bool regs_loaded_ = false;
};

std::unique_ptr<NicModel> NIC_FACTORY() { return std::unique_ptr<NicModel>(new NIC_WRAPPER()); }

}  // namespace nicsim
