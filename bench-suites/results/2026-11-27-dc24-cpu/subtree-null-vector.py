import numpy as np, sys
d='/tmp/dc24-dump/'
cp=np.fromfile(d+'cp',dtype='<u8').astype(np.int64)
ri=np.fromfile(d+'ri',dtype='<u8').astype(np.int64)
vals=np.fromfile(d+'vals',dtype='<f8')
fwd=np.fromfile(d+'fwd',dtype='<u8').astype(np.int64)
pz=int(np.fromfile(d+'pz',dtype='<u8')[0])
n=len(cp)-1
cols=np.repeat(np.arange(n),np.diff(cp))
# lower: rows>=cols
assert (ri>=cols).all()
off=ri>cols
R=ri[off]; C=cols[off]
order=np.lexsort((C,R))
R=R[order]; C=C[order]
rowptr=np.searchsorted(R,np.arange(n+1))
parent=-np.ones(n,dtype=np.int64); anc=-np.ones(n,dtype=np.int64)
for k in range(pz+1):
    for i in C[rowptr[k]:rowptr[k+1]]:
        while i!=-1 and i<k:
            nxt=anc[i]; anc[i]=k
            if nxt==-1: parent[i]=k
            i=nxt
# descendants of pz
children={}
for i in range(pz):
    p=parent[i]
    if p!=-1: children.setdefault(p,[]).append(i)
D=[];st=[pz]
while st:
    x=st.pop(); D.append(x); st.extend(children.get(x,[]))
D=sorted(D)
print('n',n,'pz',pz,'descendants+self',len(D))
idx={v:i for i,v in enumerate(D)}
m=len(D); K=np.zeros((m,m))
Dset=set(D)
for j in D:
    for k in range(cp[j],cp[j+1]):
        i=ri[k]
        if i in idx:
            K[idx[i],idx[j]]=vals[k]; K[idx[j],idx[i]]=vals[k]
np.save('/tmp/dc24/K.npy',K); np.save('/tmp/dc24/D.npy',np.array(D))
u,s,vt=np.linalg.svd(K)
print('smallest sv',s[-4:], 'largest',s[0])
v=vt[-1]
NW=int(sys.argv[1]) if len(sys.argv)>1 else 52749
big=np.argsort(-abs(v))[:25]
for b in big:
    if abs(v[b])<1e-8: break
    old=fwd[D[b]]
    print(f'pos {D[b]} old {old} {"con "+str(old-NW) if old>=NW else "var"} v={v[b]:.3e} diag={K[b,b]:.3e}')
# K without last row/col
s2=np.linalg.svd(K[:-1,:-1],compute_uv=False)
print('leading minus c smallest sv',s2[-2:])
