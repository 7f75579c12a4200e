// Placeholder until the Storage module lands.
