// Placeholder until the HTTP1 module lands.
