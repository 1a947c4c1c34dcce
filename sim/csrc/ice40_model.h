// C++ side of the iCE40 board model's cxx bridge (src/ice40_model.rs): the Verilated
// `ice40_core` (the iCE40 board's NIC, UART host link and looped wire), one clock.
#pragma once
#include <cstdint>
#include <memory>
#include "rust/cxx.h"

namespace nicsim {

struct Ice40Inputs;
struct Ice40Outputs;

class Ice40Model {
public:
    virtual ~Ice40Model() {}
    // Drives every input, evaluates, copies every output.
    virtual void eval(const Ice40Inputs& in, Ice40Outputs& out) = 0;
};

std::unique_ptr<Ice40Model> new_ice40_model();

}  // namespace nicsim
