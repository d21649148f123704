module github.com/hinshun/vt10x

go 1.14
