package dev.foxavatar;

import javax.management.MBeanServer;
import javax.management.MBeanServerBuilder;
import javax.management.MBeanServerDelegate;

/**
 * The platform MBean server, refused: {@link Main} names this class in {@code javax.management.builder.initial}
 * (the JDK's own switch for the class that builds MBean servers), so {@code ManagementFactory.getPlatformMBeanServer()}
 * throws instead of building the server and registering every platform MXBean in it. XNIO registers its MBeans
 * at start whenever {@code java.management} is in the module graph, with no switch of its own, and catches
 * the failure; jboss-threads' {@code jboss.threads.eqe.register-mbean=false} stops it asking at all. Saved:
 * about 260 JMX classes and 3.1 MB RSS (docs/bench.md; the tuning table's *mbeans* row). {@link JvmMetrics}
 * reads the MXBeans directly and never needs the server; JMX clients (JConsole,
 * {@code jcmd ManagementAgent.start}) cannot connect, which no deployment asks for.
 */
public final class NoMBeanServer extends MBeanServerBuilder {
    /** The system property that names the builder; read each time a server is asked for. */
    static final String BUILDER_PROPERTY = "javax.management.builder.initial";
    /** jboss-threads' own switch, read once when its executor class loads. */
    static final String JBOSS_THREADS_PROPERTY = "jboss.threads.eqe.register-mbean";

    @Override
    public MBeanServer newMBeanServer(String defaultDomain, MBeanServer outer, MBeanServerDelegate delegate) {
        throw new UnsupportedOperationException("fox-avatar runs without an MBean server (dev.foxavatar.NoMBeanServer)");
    }

    /**
     * Before Undertow starts: no MBean server for XNIO, no registration attempt by jboss-threads. A value
     * given on the command line wins (-Djavax.management.builder.initial=javax.management.MBeanServerBuilder
     * brings the JDK's server back: the tuning run measures it so).
     */
    static void install() {
        if (System.getProperty(BUILDER_PROPERTY) == null) {
            System.setProperty(BUILDER_PROPERTY, NoMBeanServer.class.getName());
            System.setProperty(JBOSS_THREADS_PROPERTY, "false");
        }
    }
}
