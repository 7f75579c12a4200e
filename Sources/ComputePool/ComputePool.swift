// Placeholder until the ComputePool module lands.
