// The `nic_top_axi` model of one variant: the Verilated `nic_top_axi_sim` of build.rs,
// i.e. the exported nic_top_axi (nic_top + DmaAxiBridge) whole, each output also
// registered at the rising edge (`edge_`, build.rs says why), plus outputs `sim_dma_*`
// (and their `edge_sim_dma_*`) that bring out the DMA port between nic_top and the bridge.
// Same clocking as nic_model_impl.h (read the notes there). Included by a generated
// translation unit that first defines:
//   NIC_VCLASS                  the Verilated class (header and root header included)
//   NIC_WRAPPER, NIC_FACTORY    the wrapper class and factory function to define
//   NIC_TRACED                  1 if the model was built with --trace-fst
//   NIC_FAST_CLOCK              1 if build.rs checked that nothing acts at the falling
//                               edge of the clock (a cycle may be one evaluation)
//   NIC_CLOCK_MEMORY            the root's member that remembers the clock's last value
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include "verilated.h"
#include "nic-sim/csrc/clock_cycle.h"
#if NIC_TRACED
#include "verilated_fst_c.h"
#endif
#include "nic-sim/csrc/nic_axi_model.h"
#include "nic-sim/src/axi_model.rs.h"

namespace nicsim {

static const uint64_t NIC_AXI_HALF_PERIOD_PS = 3200;

class NIC_WRAPPER final : public AxiNicModel {
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

    // One cycle: as nic_model_impl.h's `step` (read the notes there).
    void step(const AxiInputs& in, AxiOutputs& out) override {
        NIC_VCLASS* t = top_;
        bool changed = false;
#define NIC_IN(f) changed |= (t->f != (in.f)); t->f = (in.f);
#define NIC_IN_WORD(f, i, v) changed |= (t->f[i] != (uint32_t)(v)); t->f[i] = (uint32_t)(v);
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
        NIC_IN(m_axi_arready)
        // 128-bit port: VlWide<4>, word 0 = bits 31:0
        NIC_IN_WORD(m_axi_rdata, 0, in.m_axi_rdata_lo)
        NIC_IN_WORD(m_axi_rdata, 1, in.m_axi_rdata_lo >> 32)
        NIC_IN_WORD(m_axi_rdata, 2, in.m_axi_rdata_hi)
        NIC_IN_WORD(m_axi_rdata, 3, in.m_axi_rdata_hi >> 32)
        NIC_IN(m_axi_rresp)
        NIC_IN(m_axi_rlast)
        NIC_IN(m_axi_rvalid)
        NIC_IN(m_axi_awready)
        NIC_IN(m_axi_wready)
        NIC_IN(m_axi_bresp)
        NIC_IN(m_axi_bvalid)
        NIC_IN(tx_axis_tready)
        NIC_IN(rx_axis_tdata)
        NIC_IN(rx_axis_tkeep)
        NIC_IN(rx_axis_tlast)
        NIC_IN(rx_axis_tuser)
        NIC_IN(rx_axis_tvalid)
#undef NIC_IN
#undef NIC_IN_WORD

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
                if (tfp_) tfp_->dump(cycles_ * 2 * NIC_AXI_HALF_PERIOD_PS + half * NIC_AXI_HALF_PERIOD_PS);
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
    void read_outputs(AxiOutputs& out) const {
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
        out.m_axi_araddr = NIC_OUT(m_axi_araddr);
        out.m_axi_arlen = NIC_OUT(m_axi_arlen);
        out.m_axi_arsize = NIC_OUT(m_axi_arsize);
        out.m_axi_arburst = NIC_OUT(m_axi_arburst);
        out.m_axi_arvalid = NIC_OUT(m_axi_arvalid) & 1;
        out.m_axi_rready = NIC_OUT(m_axi_rready) & 1;
        out.m_axi_awaddr = NIC_OUT(m_axi_awaddr);
        out.m_axi_awlen = NIC_OUT(m_axi_awlen);
        out.m_axi_awsize = NIC_OUT(m_axi_awsize);
        out.m_axi_awburst = NIC_OUT(m_axi_awburst);
        out.m_axi_awvalid = NIC_OUT(m_axi_awvalid) & 1;
        out.m_axi_wdata_lo = (uint64_t)NIC_OUT(m_axi_wdata)[0] | ((uint64_t)NIC_OUT(m_axi_wdata)[1] << 32);
        out.m_axi_wdata_hi = (uint64_t)NIC_OUT(m_axi_wdata)[2] | ((uint64_t)NIC_OUT(m_axi_wdata)[3] << 32);
        out.m_axi_wstrb = NIC_OUT(m_axi_wstrb);
        out.m_axi_wlast = NIC_OUT(m_axi_wlast) & 1;
        out.m_axi_wvalid = NIC_OUT(m_axi_wvalid) & 1;
        out.m_axi_bready = NIC_OUT(m_axi_bready) & 1;
        out.tx_axis_tdata = NIC_OUT(tx_axis_tdata);
        out.tx_axis_tkeep = NIC_OUT(tx_axis_tkeep);
        out.tx_axis_tlast = NIC_OUT(tx_axis_tlast) & 1;
        out.tx_axis_tuser = NIC_OUT(tx_axis_tuser) & 1;
        out.tx_axis_tvalid = NIC_OUT(tx_axis_tvalid) & 1;
        out.rx_axis_tready = NIC_OUT(rx_axis_tready) & 1;
        out.irq = NIC_OUT(irq);
        // The DMA port inside (the wrapper's `sim_` outputs).
        out.dma_rd_req_valid = NIC_OUT(sim_dma_rd_req_valid) & 1;
        out.dma_rd_req_ready = NIC_OUT(sim_dma_rd_req_ready) & 1;
        out.dma_rd_req_addr = NIC_OUT(sim_dma_rd_req_addr);
        out.dma_rd_req_len = NIC_OUT(sim_dma_rd_req_len);
        out.dma_rd_req_tag = NIC_OUT(sim_dma_rd_req_tag);
        out.dma_wr_valid = NIC_OUT(sim_dma_wr_valid) & 1;
        out.dma_wr_ready = NIC_OUT(sim_dma_wr_ready) & 1;
        out.dma_wr_addr = NIC_OUT(sim_dma_wr_addr);
        out.dma_wr_data_lo = (uint64_t)NIC_OUT(sim_dma_wr_data)[0] | ((uint64_t)NIC_OUT(sim_dma_wr_data)[1] << 32);
        out.dma_wr_data_hi = (uint64_t)NIC_OUT(sim_dma_wr_data)[2] | ((uint64_t)NIC_OUT(sim_dma_wr_data)[3] << 32);
        out.dma_wr_strb = NIC_OUT(sim_dma_wr_strb);
        out.dma_wr_last = NIC_OUT(sim_dma_wr_last) & 1;
        out.dma_wr_tag = NIC_OUT(sim_dma_wr_tag);

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
    // One Verilated model: nothing is settled between models any more.
    uint32_t max_settle_rounds() const override { return 0; }

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

std::unique_ptr<AxiNicModel> NIC_FACTORY() { return std::unique_ptr<AxiNicModel>(new NIC_WRAPPER()); }

}  // namespace nicsim
