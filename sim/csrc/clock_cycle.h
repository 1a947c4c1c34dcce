// One clock cycle of a Verilated top whose inputs are already written to its ports,
// shared by nic_model_impl.h and nic_axi_model_impl.h (build.rs, "The wrapper: one
// evaluation per cycle", says why it is done this way). The including translation unit
// defines NIC_FAST_CLOCK, NIC_CLOCK_MEMORY and NIC_SETTLED_INPUTS (with NIC_PHASE_ACT and
// NIC_PHASE_NBA) as build.rs found the generated model, and NIC_GATED (with
// NIC_GATE_MEMORY and NIC_GATE_CHANGED) when the model's RDMA engine has its own clock
// (build.rs `gate_engine`).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

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

// How the RDMA engine's clock is pulsed (NIC_SIM_GATE): `on` (the default) only in a
// cycle where the engine may change (`rdma_wake`); `off` every cycle; `check` every cycle,
// failing a cycle where the engine changed while `rdma_wake` said it would not. An exact
// cycle (a waveform open, or asked for) pulses it every cycle.
// (`rdma_changed` is a plain member of the model, not a public signal: Verilator's public
// scopes deadlocked a model's destructor in a process holding two models.)
enum class GateMode { On, Off, Check };

// A fault to show that `check` catches one: NIC_SIM_GATE_FAULT=inputs makes the gate
// ignore the engine's inputs (it wakes on its own changes alone), which is not exact.
inline bool gate_fault_from_env() {
    const char* v = std::getenv("NIC_SIM_GATE_FAULT");
    if (!v || !*v) return false;
    if (!std::strcmp(v, "inputs")) return true;
    throw std::runtime_error(std::string("NIC_SIM_GATE_FAULT=") + v + ": expected inputs");
}

inline GateMode gate_mode_from_env() {
    const char* v = std::getenv("NIC_SIM_GATE");
    if (!v || !*v || !std::strcmp(v, "on")) return GateMode::On;
    if (!std::strcmp(v, "off")) return GateMode::Off;
    if (!std::strcmp(v, "check")) return GateMode::Check;
    throw std::runtime_error(std::string("NIC_SIM_GATE=") + v + ": expected on, off or check");
}

// A cycle in `check` mode found the engine changed with `rdma_wake` low: the gate would
// have skipped an edge that mattered. Loud, as a failed assertion: nothing after it holds.
[[noreturn]] inline void gate_violation(unsigned long long cycle) {
    std::fprintf(stderr,
                 "NIC_SIM_GATE=check: at cycle %llu the RDMA engine changed state while rdma_wake was low: "
                 "its simulation clock gate is not exact (sim/build.rs, gate_engine)\n",
                 cycle);
    std::abort();
}

// The cycle. The clock is high before and after, the state settled.
// * exact (asked for, a waveform open, or a build where something acts at the falling
//   edge): eval() with the clock low, `read(false)` reads the outputs from the ports,
//   eval() with the clock high; `dump(h)` after each half h = 0, 1.
// * otherwise: the clock goes low without an evaluation (its edge-detector memory with
//   it) and high again, ONE eval() settles the logic fed by the new inputs and takes the
//   edge (the edge alone when `changed` is false), and `read(true)` reads the outputs of
//   the cycle from the wrapper's `edge_` registers.
// * gated (NIC_GATED, not exact): as the fast cycle, but the logic fed by new inputs is
//   settled first by an eval() that takes no edge, so that `rdma_wake` is known before the
//   edge; then the edge alone, the engine's clock pulsed with the core's if it woke.
//   Returns false in `check` mode for a cycle where the engine changed unannounced.
template <class Top, class Read, class Dump>
inline bool clock_cycle(Top* t, bool exact, bool changed, GateMode gate, Read read, Dump dump) {
    (void)gate;
    if (exact || !NIC_FAST_CLOCK) {
        t->clock = 0;
#if NIC_GATED
        t->rdma_clock = 0;
#endif
        t->eval();
        dump(0);
        read(false);
        t->clock = 1;
#if NIC_GATED
        t->rdma_clock = 1;
#endif
        t->eval();
        dump(1);
        return true;
    }
#if NIC_GATED
#if !NIC_FAST_CLOCK || !NIC_SETTLED_INPUTS
#error "a gated model needs the fast clock and the settled-input phases (build.rs checks both)"
#endif
    if (changed) t->eval();  // the clock stays high and its memory too: no edge
    static const bool fault = gate_fault_from_env();
    bool wake = fault ? (t->rootp->NIC_GATE_CHANGED != 0) : (t->rdma_wake != 0);
    bool pulse = wake || gate != GateMode::On;
    t->rootp->NIC_CLOCK_MEMORY = 0;
    if (pulse) {
        t->rootp->NIC_GATE_MEMORY = 0;
        t->rootp->NIC_GATE_CHANGED = 0;
    }
    edge_only(t->rootp);
    read(true);
    return wake || !t->rootp->NIC_GATE_CHANGED;
#else
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
    return true;
#endif
}

}  // namespace nicsim
