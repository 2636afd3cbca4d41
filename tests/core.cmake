# Tests of core (owned by core).
