const D = require('better-sqlite3'); const { dateRowidRange } = require('./dist');
const db = new D(process.argv[2]);
const date = db.prepare('select max(date) d from datasets').get().d; const { first, end } = dateRowidRange(date);
const st = db.prepare(`select key from asns_name_search where asns_name_search match ? and rowid >= ? and rowid < ?`);
const time = (label) => { for (const w of ['danmar', 'ingracla3', 'net3']) { const t = process.hrtime.bigint(); let n; for (let i = 0; i < 20; i++) n = st.all(`"${w}"`, first, end).length; console.log(label, w, n, (Number(process.hrtime.bigint() - t) / 20e6).toFixed(2), 'ms'); } };
console.log(db.prepare("select count(*) n, sum(length(block)) bytes from asns_name_search_data").get());
time('before');
if (process.argv[3] === 'optimize') { const t = Date.now(); db.exec("insert into asns_name_search(asns_name_search) values('optimize')"); db.exec("insert into organizations_name_search(organizations_name_search) values('optimize')"); console.log('optimize', Date.now() - t, 'ms'); console.log(db.prepare("select count(*) n, sum(length(block)) bytes from asns_name_search_data").get()); time('after'); }
