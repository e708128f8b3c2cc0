//go:build !linux

package awstest

import "syscall"

// procAttr puts the server in its own process group, which Stop kills.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
