module foxavatar.test/libravatarclient

go 1.26.8

require strk.kbt.io/projects/go/libravatar v0.0.0-20191008002943-06d1c002b251
