module github.com/lagkit/lagkit

go 1.26
