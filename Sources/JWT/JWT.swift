// Placeholder until the JWT module lands.
