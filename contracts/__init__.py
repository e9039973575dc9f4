"""What the rest of the garden agrees on, at the bottom of it: the records a
family and a task declare, the registries that find them by name (importing a
home only when first asked for), and the small shared protocols families fill
in for the applications (the comparison's systems and FLOP counts). Every
package may import these modules; they import nothing of the project's above
them."""
