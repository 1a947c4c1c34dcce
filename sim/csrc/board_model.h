// C++ side of the board model's cxx bridge (src/board_model.rs): the Verilated
// `ecpix5_io` (the ECPIX-5 board layer without its PLL, with simulation models of the
// DDR cells), one eval() per event of the test bench's clocks.
#pragma once
#include <cstdint>
#include <memory>
#include "rust/cxx.h"

namespace nicsim {

struct BoardInputs;
struct BoardOutputs;

class BoardModel {
public:
    virtual ~BoardModel() {}
    // Drives every input, evaluates, copies every output. `time_ps` stamps the waveform.
    virtual void eval(const BoardInputs& in, BoardOutputs& out, uint64_t time_ps) = 0;
    virtual void open_trace(rust::Str path) = 0;
    virtual void close_trace() = 0;
};

std::unique_ptr<BoardModel> new_board_model();

}  // namespace nicsim
