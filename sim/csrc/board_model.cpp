// The Verilated `ecpix5_io` behind the BoardModel interface (board_model.h). Compiled by
// build.rs with the model's include directory.
#include <stdexcept>
#include <string>
#include "verilated.h"
#include "verilated_fst_c.h"
#include "Vnic_board_small.h"
#include "nic-sim/csrc/board_model.h"
#include "nic-sim/src/board_model.rs.h"

namespace nicsim {

class BoardModelImpl final : public BoardModel {
public:
    BoardModelImpl() : ctx_(new VerilatedContext), top_(nullptr), trace_(nullptr) {
        ctx_->traceEverOn(true);
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
        if (trace_) trace_->dump(time_ps);
        out.uart_txd = top_->uart_txd;
        out.eth_txc = top_->eth_txc;
        out.eth_tx_ctl = top_->eth_tx_ctl;
        out.eth_txd = top_->eth_txd;
        out.eth_rst_n = top_->eth_rst_n;
        out.led_r = top_->led_r;
    }
    void open_trace(rust::Str path) override {
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
    }
    void close_trace() override {
        if (trace_) {
            trace_->close();
            delete trace_;
            trace_ = nullptr;
        }
    }

private:
    std::unique_ptr<VerilatedContext> ctx_;
    Vnic_board_small* top_;
    VerilatedFstC* trace_;
};

std::unique_ptr<BoardModel> new_board_model() { return std::unique_ptr<BoardModel>(new BoardModelImpl); }

}  // namespace nicsim
