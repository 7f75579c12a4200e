// Placeholder until the HTTPServer module lands.
