// The Verilated `ecpix5_io` behind the BoardModel interface (board_model.h). Compiled by
// build.rs with the model's include directory; VM_TRACE says whether the model was
// Verilated with tracing (only with NIC_SIM_WAVES=all, sim/build.rs).
#include <stdexcept>
#include <string>
#include "verilated.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#else
class VerilatedFstC;
#endif
#include "Vnic_board_small.h"
#include "nic-sim/csrc/board_model.h"
#include "nic-sim/src/board_model.rs.h"

namespace nicsim {

class BoardModelImpl final : public BoardModel {
public:
    BoardModelImpl() : ctx_(new VerilatedContext), top_(nullptr), trace_(nullptr) {
#if VM_TRACE
        ctx_->traceEverOn(true);
#endif
        ctx_->fatalOnError(false);
        top_ = new Vnic_board_small(ctx_.get(), "board");
    }
    ~BoardModelImpl() override {
        close_trace();
        top_->final();
        delete top_;
    }
    void eval(const BoardInputs& in, BoardOutputs& out, uint64_t time_ps) override {
        top_->clk_core = in.clk_core;
        top_->clk_tx = in.clk_tx;
        top_->clk_tx90 = in.clk_tx90;
        top_->pll_locked = in.pll_locked;
        top_->rst_n = in.rst_n;
        top_->uart_rxd = in.uart_rxd;
        top_->eth_rxc = in.eth_rxc;
        top_->eth_rx_ctl = in.eth_rx_ctl;
        top_->eth_rxd = in.eth_rxd & 0xf;
        ctx_->time(time_ps);
        top_->eval();
#if VM_TRACE
        if (trace_) trace_->dump(time_ps);
#endif
        out.uart_txd = top_->uart_txd;
        out.eth_txc = top_->eth_txc;
        out.eth_tx_ctl = top_->eth_tx_ctl;
        out.eth_txd = top_->eth_txd;
        out.eth_rst_n = top_->eth_rst_n;
        out.led_r = top_->led_r;
    }
    void open_trace(rust::Str path) override {
#if VM_TRACE
        close_trace();
        trace_ = new VerilatedFstC;
        top_->trace(trace_, 99);
        std::string p(path.data(), path.size());
        trace_->open(p.c_str());
        if (!trace_->isOpen()) {
            delete trace_;
            trace_ = nullptr;
            throw std::runtime_error("cannot open waveform file " + p);
        }
#else
        (void)path;
        throw std::runtime_error(
            "no waveform of the board: this build's board model is untraced; rebuild with "
            "NIC_SIM_WAVES=all in the environment (`make waves`) to trace it");
#endif
    }
    void close_trace() override {
#if VM_TRACE
        if (trace_) {
            trace_->close();
            delete trace_;
            trace_ = nullptr;
        }
#endif
    }

private:
    std::unique_ptr<VerilatedContext> ctx_;
    Vnic_board_small* top_;
    VerilatedFstC* trace_;
};

std::unique_ptr<BoardModel> new_board_model() { return std::unique_ptr<BoardModel>(new BoardModelImpl); }

}  // namespace nicsim
