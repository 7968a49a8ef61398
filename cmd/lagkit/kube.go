package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// serviceAccountNamespace is where a pod finds its own namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// kubeAPI is a client of the Kubernetes API, the namespace it works in
// and the API server's address.
type kubeAPI struct {
	client          dynamic.Interface
	namespace, host string
}

// newKubeAPI returns a client of the Kubernetes API and the namespace to
// use: kubeconfig's cluster when given; else, inside a pod, the
// in-cluster configuration (the pod's service account); else the
// kubeconfig $KUBECONFIG or ~/.kube/config names, as kubectl finds it.
// The namespace is namespace when given, else the pod's own, or the
// kubeconfig context's, or "default".
func newKubeAPI(kubeconfig, namespace string) (kubeAPI, error) {
	var cfg *rest.Config
	var err error
	if kubeconfig == "" {
		cfg, err = rest.InClusterConfig()
		if err == nil {
			if namespace == "" {
				b, rerr := os.ReadFile(serviceAccountNamespace)
				if rerr != nil {
					return kubeAPI{}, fmt.Errorf("in-cluster: %w", rerr)
				}
				namespace = strings.TrimSpace(string(b))
			}
		} else if !errors.Is(err, rest.ErrNotInCluster) {
			return kubeAPI{}, fmt.Errorf("in-cluster configuration: %w", err)
		}
	}
	if cfg == nil {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = kubeconfig
		cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
		if cfg, err = cc.ClientConfig(); err != nil {
			if kubeconfig == "" {
				return kubeAPI{}, fmt.Errorf("not in a pod, and no kubeconfig ($KUBECONFIG, ~/.kube/config): %w", err)
			}
			return kubeAPI{}, err
		}
		if namespace == "" {
			if namespace, _, err = cc.Namespace(); err != nil {
				return kubeAPI{}, err
			}
		}
	}
	if namespace == "" {
		namespace = "default"
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return kubeAPI{}, err
	}
	return kubeAPI{client: dc, namespace: namespace, host: cfg.Host}, nil
}
