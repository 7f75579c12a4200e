// Placeholder until the PosternApp module lands.
