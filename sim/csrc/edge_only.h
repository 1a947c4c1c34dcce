// The rising edge alone, shared by nic_model_impl.h and nic_axi_model_impl.h: for a
// cycle whose inputs equal the previous cycle's. The logic they feed was evaluated after
// the previous edge with the state it left, so Verilator's input region ('ico') would
// change nothing; run the 'act' and 'nba' phases as the generated `_eval` runs them after
// that region. build.rs (`settled_input_phases`) checked that `_eval` has that shape and
// defines NIC_SETTLED_INPUTS, NIC_PHASE_ACT and NIC_PHASE_NBA for the translation unit.
#pragma once
#include <stdexcept>

namespace nicsim {

#if NIC_SETTLED_INPUTS
template <class Root>
inline void edge_only(Root* r) {
    for (int rounds = 0;; rounds++) {
        for (int act = 0; NIC_PHASE_ACT(r); act++) {
            if (act > 100) throw std::runtime_error("the model's active region did not converge");
        }
        if (!NIC_PHASE_NBA(r)) break;
        if (rounds > 100) throw std::runtime_error("the model's NBA region did not converge");
    }
}
#endif

}  // namespace nicsim
