// Command glassbox is a full-screen terminal glass box for an AI coding agent.
package main

func main() {}
