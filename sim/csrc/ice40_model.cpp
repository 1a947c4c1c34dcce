// The Verilated `ice40_core` behind the Ice40Model interface (ice40_model.h). Compiled by
// build.rs with the model's include directory.
#include "verilated.h"
#include "Vnic_ice40_small.h"
#include "nic-sim/csrc/ice40_model.h"
#include "nic-sim/src/ice40_model.rs.h"

namespace nicsim {

class Ice40ModelImpl final : public Ice40Model {
public:
    Ice40ModelImpl() : ctx_(new VerilatedContext), top_(nullptr) {
        ctx_->fatalOnError(false);
        top_ = new Vnic_ice40_small(ctx_.get(), "ice40");
    }
    ~Ice40ModelImpl() override {
        top_->final();
        delete top_;
    }
    void eval(const Ice40Inputs& in, Ice40Outputs& out) override {
        top_->clock = in.clock;
        top_->reset = in.reset;
        top_->uart_divisor = in.uart_divisor;
        top_->uart_rx = in.uart_rx;
        top_->eval();
        out.uart_tx = top_->uart_tx;
        out.led = top_->led;
    }

private:
    std::unique_ptr<VerilatedContext> ctx_;
    Vnic_ice40_small* top_;
};

std::unique_ptr<Ice40Model> new_ice40_model() { return std::unique_ptr<Ice40Model>(new Ice40ModelImpl); }

}  // namespace nicsim
