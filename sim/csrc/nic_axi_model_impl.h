// The `nic_top_axi` model of one nic_top variant: the Verilated `nic_top` (NIC_VCLASS)
// and the Verilated `DmaAxiBridge` (BRIDGE_VCLASS) wired port to port, exactly as
// `nic_top_axi` wires them (hw/src/top_axi.rs), in one VerilatedContext. Included by a
// generated translation unit that first defines:
//   NIC_VCLASS, BRIDGE_VCLASS   the Verilated classes (headers and roots included)
//   NIC_WRAPPER, NIC_FACTORY    the wrapper class and factory function to define
//   NIC_TRACED                  1 if both models were built with --trace-fst
//   NIC_FAST_CLOCK, BRIDGE_FAST_CLOCK  1 if build.rs found the model's clock used by
//                               nothing but its rising-edge trigger (see nic_model_impl.h)
//
// Why two models and not `nic_top_axi.v` Verilated whole: Verilator 5.006 mis-schedules
// the block-level combinational cycles between the NIC's and the bridge's always blocks
// (details in build.rs at BRIDGE). Two models have no cycle inside either one across
// the DMA port; the cycle's combinational paths through the port are settled here
// explicitly: each clock-low phase evaluates the NIC, hands its DMA-port outputs to the
// bridge, evaluates the bridge, hands its outputs back, and repeats until nothing
// changes (a real combinational loop through the port would not settle: then it throws).
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include "verilated.h"
#if NIC_TRACED
#include "verilated_fst_c.h"
#endif
#include "nic-sim/csrc/nic_axi_model.h"
#include "nic-sim/src/axi_model.rs.h"

namespace nicsim {

static const uint64_t NIC_AXI_HALF_PERIOD_PS = 3200;
// Settling rounds per clock-low phase before giving up (a round = NIC, then bridge;
// another one runs whenever the bridge changed a NIC input).
static const int NIC_AXI_MAX_SETTLE = 16;

class NIC_WRAPPER final : public AxiNicModel {
public:
    NIC_WRAPPER() : ctx_(new VerilatedContext), nic_(nullptr), br_(nullptr), cycles_(0) {
#if NIC_TRACED
        ctx_->traceEverOn(true);
#endif
        ctx_->fatalOnError(false);
        nic_ = new NIC_VCLASS(ctx_.get(), "nic");
        br_ = new BRIDGE_VCLASS(ctx_.get(), "bridge");
        nic_->clock = 0;
        nic_->reset = 1;
        br_->clock = 0;
        br_->reset = 1;
        nic_->eval();
        br_->eval();
    }
    ~NIC_WRAPPER() override {
        close_trace();
        nic_->final();
        br_->final();
        delete br_;
        delete nic_;
    }

    void step(const AxiInputs& in, AxiOutputs& out) override {
        NIC_VCLASS* n = nic_;
        BRIDGE_VCLASS* b = br_;
        bool nic_changed = exact_;
        bool br_changed = exact_;
#define SET(t, ch, f, v) ch |= (t->f != (v)); t->f = (v);
#define SETW(t, ch, f, i, v) ch |= (t->f[i] != (uint32_t)(v)); t->f[i] = (uint32_t)(v);
        // Inputs of the environment.
        SET(n, nic_changed, reset, in.reset)
        SET(n, nic_changed, s_axil_awaddr, in.s_axil_awaddr)
        SET(n, nic_changed, s_axil_awvalid, in.s_axil_awvalid)
        SET(n, nic_changed, s_axil_wdata, in.s_axil_wdata)
        SET(n, nic_changed, s_axil_wstrb, in.s_axil_wstrb)
        SET(n, nic_changed, s_axil_wvalid, in.s_axil_wvalid)
        SET(n, nic_changed, s_axil_bready, in.s_axil_bready)
        SET(n, nic_changed, s_axil_araddr, in.s_axil_araddr)
        SET(n, nic_changed, s_axil_arvalid, in.s_axil_arvalid)
        SET(n, nic_changed, s_axil_rready, in.s_axil_rready)
        SET(n, nic_changed, tx_axis_tready, in.tx_axis_tready)
        SET(n, nic_changed, rx_axis_tdata, in.rx_axis_tdata)
        SET(n, nic_changed, rx_axis_tkeep, in.rx_axis_tkeep)
        SET(n, nic_changed, rx_axis_tlast, in.rx_axis_tlast)
        SET(n, nic_changed, rx_axis_tuser, in.rx_axis_tuser)
        SET(n, nic_changed, rx_axis_tvalid, in.rx_axis_tvalid)
        SET(b, br_changed, reset, in.reset)
        SET(b, br_changed, m_axi_arready, in.m_axi_arready)
        SETW(b, br_changed, m_axi_rdata, 0, in.m_axi_rdata_lo)
        SETW(b, br_changed, m_axi_rdata, 1, in.m_axi_rdata_lo >> 32)
        SETW(b, br_changed, m_axi_rdata, 2, in.m_axi_rdata_hi)
        SETW(b, br_changed, m_axi_rdata, 3, in.m_axi_rdata_hi >> 32)
        SET(b, br_changed, m_axi_rresp, in.m_axi_rresp)
        SET(b, br_changed, m_axi_rlast, in.m_axi_rlast)
        SET(b, br_changed, m_axi_rvalid, in.m_axi_rvalid)
        SET(b, br_changed, m_axi_awready, in.m_axi_awready)
        SET(b, br_changed, m_axi_wready, in.m_axi_wready)
        SET(b, br_changed, m_axi_bresp, in.m_axi_bresp)
        SET(b, br_changed, m_axi_bvalid, in.m_axi_bvalid)

        // Clock low: settle both models and the DMA port between them.
        int rounds = 0;
        for (;;) {
            if (nic_changed || !nic_settled_) {
                n->clock = 0;
                n->eval();
                nic_settled_ = true;
            }
            nic_changed = false;
            // nic_top -> bridge
            SET(b, br_changed, dma_rd_req_valid, n->dma_rd_req_valid)
            SET(b, br_changed, dma_rd_req_addr, n->dma_rd_req_addr)
            SET(b, br_changed, dma_rd_req_len, n->dma_rd_req_len)
            SET(b, br_changed, dma_rd_req_tag, n->dma_rd_req_tag)
            SET(b, br_changed, dma_rd_rsp_ready, n->dma_rd_rsp_ready)
            SET(b, br_changed, dma_wr_valid, n->dma_wr_valid)
            SET(b, br_changed, dma_wr_addr, n->dma_wr_addr)
            for (int i = 0; i < 4; i++) { SETW(b, br_changed, dma_wr_data, i, n->dma_wr_data[i]) }
            SET(b, br_changed, dma_wr_strb, n->dma_wr_strb)
            SET(b, br_changed, dma_wr_last, n->dma_wr_last)
            SET(b, br_changed, dma_wr_tag, n->dma_wr_tag)
            if (br_changed || !br_settled_) {
                b->clock = 0;
                b->eval();
                br_settled_ = true;
                br_changed = false;
            }
            // bridge -> nic_top
            SET(n, nic_changed, dma_rd_req_ready, b->dma_rd_req_ready)
            SET(n, nic_changed, dma_rd_rsp_valid, b->dma_rd_rsp_valid)
            for (int i = 0; i < 4; i++) { SETW(n, nic_changed, dma_rd_rsp_data, i, b->dma_rd_rsp_data[i]) }
            SET(n, nic_changed, dma_rd_rsp_last, b->dma_rd_rsp_last)
            SET(n, nic_changed, dma_rd_rsp_error, b->dma_rd_rsp_error)
            SET(n, nic_changed, dma_rd_rsp_tag, b->dma_rd_rsp_tag)
            SET(n, nic_changed, dma_wr_ready, b->dma_wr_ready)
            SET(n, nic_changed, dma_wr_rsp_valid, b->dma_wr_rsp_valid)
            SET(n, nic_changed, dma_wr_rsp_error, b->dma_wr_rsp_error)
            SET(n, nic_changed, dma_wr_rsp_tag, b->dma_wr_rsp_tag)
            if (!nic_changed) break;
            if (++rounds > NIC_AXI_MAX_SETTLE) {
                throw std::runtime_error("nic_top_axi: combinational loop through the DMA port does not settle (cycle " +
                                         std::to_string(cycles_) + ")");
            }
        }
#undef SET
#undef SETW
        max_rounds_ = rounds > max_rounds_ ? rounds : max_rounds_;
#if NIC_TRACED
        if (tfp_) tfp_->dump(cycles_ * 2 * NIC_AXI_HALF_PERIOD_PS);
#endif
        out.s_axil_awready = n->s_axil_awready & 1;
        out.s_axil_wready = n->s_axil_wready & 1;
        out.s_axil_bresp = n->s_axil_bresp;
        out.s_axil_bvalid = n->s_axil_bvalid & 1;
        out.s_axil_arready = n->s_axil_arready & 1;
        out.s_axil_rdata = n->s_axil_rdata;
        out.s_axil_rresp = n->s_axil_rresp;
        out.s_axil_rvalid = n->s_axil_rvalid & 1;
        out.m_axi_araddr = b->m_axi_araddr;
        out.m_axi_arlen = b->m_axi_arlen;
        out.m_axi_arsize = b->m_axi_arsize;
        out.m_axi_arburst = b->m_axi_arburst;
        out.m_axi_arvalid = b->m_axi_arvalid & 1;
        out.m_axi_rready = b->m_axi_rready & 1;
        out.m_axi_awaddr = b->m_axi_awaddr;
        out.m_axi_awlen = b->m_axi_awlen;
        out.m_axi_awsize = b->m_axi_awsize;
        out.m_axi_awburst = b->m_axi_awburst;
        out.m_axi_awvalid = b->m_axi_awvalid & 1;
        out.m_axi_wdata_lo = (uint64_t)b->m_axi_wdata[0] | ((uint64_t)b->m_axi_wdata[1] << 32);
        out.m_axi_wdata_hi = (uint64_t)b->m_axi_wdata[2] | ((uint64_t)b->m_axi_wdata[3] << 32);
        out.m_axi_wstrb = b->m_axi_wstrb;
        out.m_axi_wlast = b->m_axi_wlast & 1;
        out.m_axi_wvalid = b->m_axi_wvalid & 1;
        out.m_axi_bready = b->m_axi_bready & 1;
        out.tx_axis_tdata = n->tx_axis_tdata;
        out.tx_axis_tkeep = n->tx_axis_tkeep;
        out.tx_axis_tlast = n->tx_axis_tlast & 1;
        out.tx_axis_tuser = n->tx_axis_tuser & 1;
        out.tx_axis_tvalid = n->tx_axis_tvalid & 1;
        out.rx_axis_tready = n->rx_axis_tready & 1;
        out.irq = n->irq;
        out.dma_rd_req_valid = n->dma_rd_req_valid & 1;
        out.dma_rd_req_ready = b->dma_rd_req_ready & 1;
        out.dma_rd_req_addr = n->dma_rd_req_addr;
        out.dma_rd_req_len = n->dma_rd_req_len;
        out.dma_rd_req_tag = n->dma_rd_req_tag;
        out.dma_wr_valid = n->dma_wr_valid & 1;
        out.dma_wr_ready = b->dma_wr_ready & 1;
        out.dma_wr_addr = n->dma_wr_addr;
        out.dma_wr_data_lo = (uint64_t)n->dma_wr_data[0] | ((uint64_t)n->dma_wr_data[1] << 32);
        out.dma_wr_data_hi = (uint64_t)n->dma_wr_data[2] | ((uint64_t)n->dma_wr_data[3] << 32);
        out.dma_wr_strb = n->dma_wr_strb;
        out.dma_wr_last = n->dma_wr_last & 1;
        out.dma_wr_tag = n->dma_wr_tag;

        // The edge: both sample the settled values.
        n->clock = 1;
        n->eval();
        b->clock = 1;
        b->eval();
#if NIC_TRACED
        if (tfp_) tfp_->dump(cycles_ * 2 * NIC_AXI_HALF_PERIOD_PS + NIC_AXI_HALF_PERIOD_PS);
#endif
        // After the edge the outputs changed while the inputs between the two models did
        // not: the next cycle's settling sees that through the port copies.
#if NIC_FAST_CLOCK
        n->clock = 0;
        n->rootp->__Vtrigrprev__TOP__clock = 0;
#else
        nic_settled_ = false;
#endif
#if BRIDGE_FAST_CLOCK
        b->clock = 0;
        b->rootp->__Vtrigrprev__TOP__clock = 0;
#else
        br_settled_ = false;
#endif
        cycles_++;
    }

    void set_exact_eval(bool exact) override { exact_ = exact; }
    bool fast_clock_build() const override { return NIC_FAST_CLOCK != 0 && BRIDGE_FAST_CLOCK != 0; }

    void open_trace(rust::Str path) override {
#if NIC_TRACED
        close_trace();
        std::string p(path.data(), path.size());
        tfp_.reset(new VerilatedFstC);
        nic_->trace(tfp_.get(), 99);
        br_->trace(tfp_.get(), 99);
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
    uint32_t max_settle_rounds() const override { return (uint32_t)max_rounds_; }

private:
    std::unique_ptr<VerilatedContext> ctx_;
    NIC_VCLASS* nic_;
    BRIDGE_VCLASS* br_;
#if NIC_TRACED
    std::unique_ptr<VerilatedFstC> tfp_;
#endif
    uint64_t cycles_;
    bool exact_ = false;
    bool nic_settled_ = false;
    bool br_settled_ = false;
    int max_rounds_ = 0;
};

std::unique_ptr<AxiNicModel> NIC_FACTORY() { return std::unique_ptr<AxiNicModel>(new NIC_WRAPPER()); }

}  // namespace nicsim
