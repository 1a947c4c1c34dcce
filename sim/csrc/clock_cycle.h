// One clock cycle of a Verilated top whose inputs are already written to its ports,
// shared by nic_model_impl.h and nic_axi_model_impl.h (build.rs, "The wrapper: one
// evaluation per cycle", says why it is done this way). The including translation unit
// defines NIC_FAST_CLOCK, NIC_CLOCK_MEMORY and NIC_SETTLED_INPUTS (with NIC_PHASE_ACT and
// NIC_PHASE_NBA) as build.rs found the generated model, and NIC_GATED (with the list
// NIC_GATES) when blocks of the model have clocks of their own (build.rs `gate_blocks`).
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

// How a gated block's clock is pulsed (NIC_SIM_GATE): `on` (the default) only in a
// cycle where the block may change (its `_wake`); `off` every cycle; `check` every cycle,
// failing a cycle where a block changed while its `_wake` said it would not. An exact
// cycle (a waveform open, or asked for) pulses every clock every cycle.
// (`<gate>_changed` is a plain member of the model, not a public signal: Verilator's
// public scopes deadlocked a model's destructor in a process holding two models.)
enum class GateMode { On, Off, Check };

// A fault to show that `check` catches one: NIC_SIM_GATE_FAULT=inputs makes the gates
// ignore their blocks' inputs (each wakes on its own changes alone), which is not exact.
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

// A cycle in `check` mode found a block changed with its `_wake` low: the gate would
// have skipped an edge that mattered. Loud, as a failed assertion: nothing after it holds.
[[noreturn]] inline void gate_violation(unsigned long long cycle, const char* what) {
    std::fprintf(stderr,
                 "NIC_SIM_GATE=check: at cycle %llu %s changed state while its wake was low: "
                 "its simulation clock gate is not exact (sim/build.rs, gate_blocks)\n",
                 cycle, what);
    std::abort();
}

#if NIC_GATED
// Every gated clock to `v` (the exact cycle, and the model's first evaluation).
template <class Top>
inline void set_gate_clocks(Top* t, int v) {
#define NIC_GATE_SET(clk, wake, mem, chg, what) t->clk = v;
    NIC_GATES(NIC_GATE_SET)
#undef NIC_GATE_SET
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
// * gated (NIC_GATED, not exact): as the fast cycle, but the logic fed by new inputs is
//   settled first by an eval() that takes no edge, so that each gate's `_wake` is known
//   before the edge; then the edge alone, each gated clock pulsed with the core's if its
//   block woke.
//   Returns, in `check` mode, the name of a block that changed unannounced, else null.
template <class Top, class Read, class Dump>
inline const char* clock_cycle(Top* t, bool exact, bool changed, GateMode gate, Read read, Dump dump) {
    (void)gate;
    if (exact || !NIC_FAST_CLOCK) {
        t->clock = 0;
#if NIC_GATED
        set_gate_clocks(t, 0);
#endif
        t->eval();
        dump(0);
        read(false);
        t->clock = 1;
#if NIC_GATED
        set_gate_clocks(t, 1);
#endif
        t->eval();
        dump(1);
        return nullptr;
    }
#if NIC_GATED
#if !NIC_FAST_CLOCK || !NIC_SETTLED_INPUTS
#error "a gated model needs the fast clock and the settled-input phases (build.rs checks both)"
#endif
    if (changed) t->eval();  // the clock stays high and its memory too: no edge
    static const bool fault = gate_fault_from_env();
    const bool every = gate != GateMode::On;
    // a gate that woke (or every one, off and check) takes the edge: its clock's memory
    // low, so the edge phases see it rise with the core clock, and its flag cleared
#define NIC_GATE_ARM(clk, wake, mem, chg, what)                                 \
    const bool woke_##clk = fault ? (t->rootp->chg != 0) : (t->wake != 0);       \
    if (woke_##clk || every) {                                                  \
        t->rootp->mem = 0;                                                      \
        t->rootp->chg = 0;                                                      \
    }
    NIC_GATES(NIC_GATE_ARM)
#undef NIC_GATE_ARM
    t->rootp->NIC_CLOCK_MEMORY = 0;
    edge_only(t->rootp);
    read(true);
#define NIC_GATE_CHECK(clk, wake, mem, chg, what) \
    if (!woke_##clk && t->rootp->chg) return what;
    NIC_GATES(NIC_GATE_CHECK)
#undef NIC_GATE_CHECK
    return nullptr;
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
    return nullptr;
#endif
}

}  // namespace nicsim
