// Placeholder until the Fetch module lands.
