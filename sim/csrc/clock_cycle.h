// One clock cycle of a Verilated top whose inputs are already written to its ports,
// shared by nic_model_impl.h and nic_axi_model_impl.h (build.rs, "The wrapper: one
// evaluation per cycle", says why it is done this way). The including translation unit
// defines NIC_FAST_CLOCK, NIC_CLOCK_MEMORY and NIC_SETTLED_INPUTS (with NIC_PHASE_ACT and
// NIC_PHASE_NBA) as build.rs found the generated model.
#pragma once
#include <stdexcept>

namespace nicsim {

#if NIC_SETTLED_INPUTS
// The rising edge alone, for a cycle whose inputs equal the previous cycle's. The logic
// they feed was evaluated after the previous edge with the state it left, so Verilator's
// input region ('ico') would change nothing; run the 'act' and 'nba' phases as the
// generated `_eval` runs them after that region (build.rs `settled_input_phases` checked
// that `_eval` has that shape).
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

// The cycle. The clock is high before and after, the state settled.
// * exact (asked for, a waveform open, or a build where something acts at the falling
//   edge): eval() with the clock low, `read(false)` reads the outputs from the ports,
//   eval() with the clock high; `dump(h)` after each half h = 0, 1.
// * otherwise: the clock goes low without an evaluation (its edge-detector memory with
//   it) and high again, ONE eval() settles the logic fed by the new inputs and takes the
//   edge (the edge alone when `changed` is false), and `read(true)` reads the outputs of
//   the cycle from the wrapper's `edge_` registers.
template <class Top, class Read, class Dump>
inline void clock_cycle(Top* t, bool exact, bool changed, Read read, Dump dump) {
    if (exact || !NIC_FAST_CLOCK) {
        t->clock = 0;
        t->eval();
        dump(0);
        read(false);
        t->clock = 1;
        t->eval();
        dump(1);
        return;
    }
#if NIC_FAST_CLOCK
    t->rootp->NIC_CLOCK_MEMORY = 0;
#endif
    t->clock = 1;
#if NIC_SETTLED_INPUTS
    if (!changed) {
        edge_only(t->rootp);
    } else {
        t->eval();
    }
#else
    (void)changed;
    t->eval();
#endif
    read(true);
}

}  // namespace nicsim
