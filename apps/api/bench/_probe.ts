import { startRestTarget } from './rest-target.js';
const t = await startRestTarget({ sources: [['dbA','postgresql',5432,'jbench_1_a'],['dbB','postgresql',5432,'jbench_1_b'],['dbC','mysql',3306,'jbench_1_c'],['dbD','mysql',3306,'jbench_1_d'],['direct','postgresql',5432,'jbench_1_direct']].map(([name,engine,port,database]) => ({ name, engine, host: '127.0.0.1', port, database, user: 'junction', password: 'junction' })) as never, nodeArgs: (process.env.NODEARGS ?? '').split(' ').filter(Boolean) });
const sql = process.env.SQL ?? 'SELECT * FROM dbB.customer WHERE c_custkey <= 100';
const ms: number[] = []; const st: string[] = [];
for (let i = 0; i < 1200; i++) { const t0 = performance.now(); const r = await t.query(sql); if (i >= 200) { ms.push(performance.now() - t0); st.push(r.serverTiming ?? ''); } }
ms.sort((a, b) => a - b);
console.log('p50', ms[500].toFixed(2), 'p90', ms[900].toFixed(2), st.slice(-3));
await t.close();
